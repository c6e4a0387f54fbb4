#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one JSON form every layer writes: the store's document bodies, the change events that
/// reuse those bytes, and HTTP responses. Kept here, in the lowest layer, so that the three can
/// never drift apart (an event splices the stored body in as it is, so a second configuration
/// would send two spellings of one document).
public enum JSONCoding {
    /// Sorted keys keep bodies (and so ETags) stable; "/" needs no escape in JSON.
    public static let outputFormatting: JSONEncoder.OutputFormatting = [.sortedKeys, .withoutEscapingSlashes]

    /// One shared encoder: creating a `JSONEncoder` per value costs more than encoding a small value.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = outputFormatting
        return encoder
    }()
}
