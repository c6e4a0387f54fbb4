/// 64-bit FNV-1a: a hash that is stable across runs and processes (unlike `Hasher`),
/// for entity tags and digests that are compared between runs or replicas.
public struct FNV1a: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    /// Mixes in `bytes` and a separator, so `["ab", "c"]` and `["a", "bc"]` differ.
    public mutating func combine(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { combine($0) }
    }

    /// `combine` of bytes in place: no array made to hash them.
    public mutating func combine(_ bytes: UnsafeRawBufferPointer) {
        mix(bytes)
        endPart()
    }

    /// Mixes in `bytes` with no separator after them: several calls hash as one call with their
    /// bytes joined (`mix(a); mix(b)` is `mix(a + b)`).
    public mutating func mix(_ bytes: UnsafeRawBufferPointer) {
        mixSequence(bytes)
    }

    /// Mixes in `text`'s UTF-8, as the raw bytes' `mix(_:)` would.
    public mutating func mix(_ text: String) {
        mixSequence(text.utf8)
    }

    /// The one loop of both `mix`es (specialized for each here, in the module).
    private mutating func mixSequence(_ bytes: some Sequence<UInt8>) {
        var value = value
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x100_0000_01b3
        }
        self.value = value
    }

    /// Mixes in one byte, as the raw bytes' `mix(_:)` would.
    public mutating func mix(byte: UInt8) {
        value ^= UInt64(byte)
        value &*= 0x100_0000_01b3
    }

    /// The separator `combine` puts after its bytes.
    public mutating func endPart() {
        mix(byte: 0xff)
    }
}
