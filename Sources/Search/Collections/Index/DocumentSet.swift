/// A set of a segment's documents (numbered densely from 0) as a bitmap.
struct DocumentSet: Sendable, Hashable {
    private(set) var words: [UInt64]
    /// Documents the set can hold: `0..<capacity`.
    let capacity: Int

    /// The empty set.
    init(capacity: Int) {
        self.capacity = capacity
        words = [UInt64](repeating: 0, count: (capacity + 63) / 64)
    }

    /// A set as persisted: `words` must number `(capacity + 63) / 64`, with no bit at or past `capacity`.
    init(words: [UInt64], capacity: Int) {
        precondition(words.count == (capacity + 63) / 64)
        self.words = words
        self.capacity = capacity
    }

    /// Every document of `0..<capacity`.
    static func all(capacity: Int) -> DocumentSet {
        var set = DocumentSet(capacity: capacity)
        set.words = [UInt64](repeating: ~0, count: set.words.count)
        set.clearTail()
        return set
    }

    /// The set of `documents` (any order).
    init(capacity: Int, _ documents: some Sequence<UInt32>) {
        self.init(capacity: capacity)
        for d in documents { insert(d) }
    }

    @inline(__always) func contains(_ d: UInt32) -> Bool {
        words[Int(d >> 6)] & (1 << UInt64(d & 63)) != 0
    }

    @inline(__always) mutating func insert(_ d: UInt32) {
        words[Int(d >> 6)] |= 1 << UInt64(d & 63)
    }

    var count: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    var isEmpty: Bool { words.allSatisfy { $0 == 0 } }

    mutating func formIntersection(_ other: DocumentSet) {
        for i in words.indices { words[i] &= other.words[i] }
    }

    mutating func formUnion(_ other: DocumentSet) {
        for i in words.indices { words[i] |= other.words[i] }
    }

    mutating func subtract(_ other: DocumentSet) {
        for i in words.indices { words[i] &= ~other.words[i] }
    }

    /// The documents of `0..<capacity` not in the set.
    func complement() -> DocumentSet {
        var result = self
        for i in result.words.indices { result.words[i] = ~result.words[i] }
        result.clearTail()
        return result
    }

    private mutating func clearTail() {
        let extra = words.count * 64 - capacity
        if extra > 0 { words[words.count - 1] &= ~0 >> UInt64(extra) }
    }

    /// Calls `body` with each document, ascending.
    @inline(__always) func forEach(_ body: (UInt32) -> Void) {
        words.withUnsafeBufferPointer { words in
            for (index, word) in words.enumerated() {
                var bits = word
                while bits != 0 {
                    body(UInt32(index << 6 | bits.trailingZeroBitCount))
                    bits &= bits - 1
                }
            }
        }
    }
}
