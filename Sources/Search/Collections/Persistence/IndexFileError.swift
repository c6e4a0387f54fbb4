/// Why a persisted index file cannot be used. The caller rebuilds the index from the store
/// instead (and writes the file anew); none of these is ever served.
public struct IndexFileError: Error, Sendable, CustomStringConvertible {
    public enum Reason: String, Sendable {
        /// No such file.
        case missing
        /// Shorter than its header and checksum, or than a section it announces.
        case truncated
        /// Not an index file of this format version.
        case unknownFormat
        /// Its checksum does not match its bytes.
        case corrupt
        /// Well formed, but what it says does not hold together (a count beyond the data, ...).
        case inconsistent
        /// The file system refused a read or a write.
        case io
    }

    public let reason: Reason
    public let path: String
    public let detail: String

    init(_ reason: Reason, path: String, _ detail: String) {
        self.reason = reason
        self.path = path
        self.detail = detail
    }

    public var description: String { "\(path): \(reason.rawValue): \(detail)" }
}
