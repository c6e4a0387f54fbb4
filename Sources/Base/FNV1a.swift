/// 64-bit FNV-1a: a hash that is stable across runs and processes (unlike `Hasher`),
/// for entity tags and digests that are compared between runs or replicas.
public struct FNV1a: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    /// Mixes in `bytes` and a separator, so `["ab", "c"]` and `["a", "bc"]` differ.
    public mutating func combine(_ bytes: [UInt8]) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x100_0000_01b3
        }
        value ^= 0xff
        value &*= 0x100_0000_01b3
    }
}
