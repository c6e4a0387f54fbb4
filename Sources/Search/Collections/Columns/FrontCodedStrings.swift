/// Byte strings numbered from 0, front-coded in blocks of ``blockSize``: each block's first
/// string whole, each next one as the length of the prefix it shares with the one before and
/// the rest (lengths as LEB128 varints). A column's sorted values share long prefixes (a million
/// sorted paths kept 10 of their 61 MB), so this keeps a fraction of a plain arena; reading
/// string `v` decodes at most a block.
struct FrontCodedStrings: Sendable {
    /// Strings a block holds; the first is stored whole (where a binary search starts).
    static let blockSize = 16

    /// The encoded blocks, back to back.
    let bytes: [UInt8]
    /// Where block `b` starts in `bytes`.
    let blockStarts: [UInt32]
    let count: Int

    /// Strings as persisted (`FieldColumn+File`), checked by ``isWellFormed``.
    init(bytes: [UInt8], blockStarts: [UInt32], count: Int) {
        self.bytes = bytes
        self.blockStarts = blockStarts
        self.count = count
    }

    /// Appends strings one at a time.
    struct Builder {
        private var bytes: [UInt8] = []
        private var blockStarts: [UInt32] = []
        private var previous: [UInt8] = []
        private var count = 0

        init() {}

        mutating func append(_ string: some Collection<UInt8>) {
            // Through a buffer: comparing and copying a generic collection byte by byte through its
            // iterators cost about 2,000 instructions a value (a city's write builds dozens).
            if string.withContiguousStorageIfAvailable({ append(bytes: $0) }) == nil {
                Array(string).withUnsafeBufferPointer { append(bytes: $0) }
            }
        }

        private mutating func append(bytes string: UnsafeBufferPointer<UInt8>) {
            var shared = 0
            if count % FrontCodedStrings.blockSize == 0 {
                blockStarts.append(UInt32(bytes.count))
                FrontCodedStrings.appendVarint(string.count, to: &bytes)
                bytes.append(contentsOf: string)
            } else {
                shared = previous.withUnsafeBufferPointer { previous in
                    var shared = 0
                    let limit = min(previous.count, string.count)
                    while shared < limit, previous[shared] == string[shared] { shared += 1 }
                    return shared
                }
                FrontCodedStrings.appendVarint(shared, to: &bytes)
                FrontCodedStrings.appendVarint(string.count - shared, to: &bytes)
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: string[shared...]))
            }
            // Only the rest after the shared prefix is copied (sorted paths share most of theirs).
            previous.removeLast(previous.count - shared)
            previous.append(contentsOf: UnsafeBufferPointer(rebasing: string[shared...]))
            count += 1
        }

        var isEmpty: Bool { count == 0 }

        /// The strings, in arrays of their exact size (a grown array keeps up to twice its bytes).
        func build() -> FrontCodedStrings {
            FrontCodedStrings(
                bytes: bytes.withUnsafeBufferPointer { Array($0) }, blockStarts: blockStarts.withUnsafeBufferPointer { Array($0) },
                count: count)
        }
    }

    static let empty = FrontCodedStrings(bytes: [], blockStarts: [], count: 0)

    /// Reads the strings in order, each decoded once from the one before it (``withString(_:_:)``
    /// decodes a string from its block's head, and hands it over in an array of its own): what a
    /// merge of columns walks.
    struct Reader {
        private let strings: FrontCodedStrings
        /// The number of the string in ``current``; `count` once past the last.
        private(set) var index = -1
        /// String ``index``'s bytes (empty past the last).
        private(set) var current: [UInt8] = []
        /// Where string `index + 1` starts in the bytes.
        private var offset = 0

        /// A reader at string 0.
        init(_ strings: FrontCodedStrings) {
            self.strings = strings
            advance()
        }

        /// Moves to the next string.
        mutating func advance() {
            index += 1
            guard index < strings.count else {
                index = strings.count
                current.removeAll()
                return
            }
            strings.bytes.withUnsafeBufferPointer { bytes in
                if index % FrontCodedStrings.blockSize == 0 {
                    offset = Int(strings.blockStarts[index / FrontCodedStrings.blockSize])
                    let length = FrontCodedStrings.varint(bytes, &offset)
                    current.removeAll(keepingCapacity: true)
                    current.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset..<offset + length]))
                    offset += length
                } else {
                    let shared = FrontCodedStrings.varint(bytes, &offset)
                    let rest = FrontCodedStrings.varint(bytes, &offset)
                    current.removeLast(current.count - shared)
                    current.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset..<offset + rest]))
                    offset += rest
                }
            }
        }

        /// Moves forward to string `target` (at or after the current one).
        mutating func advance(to target: Int) {
            while index < target { advance() }
        }
    }

    /// Calls `body` with string `v` (decoded into a buffer of its own: valid only in `body`).
    func withString<Value>(_ v: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Value) -> Value {
        precondition(v >= 0 && v < count, "string \(v) of \(count)")
        var string: [UInt8] = []
        bytes.withUnsafeBufferPointer { bytes in
            var offset = Int(blockStarts[v / Self.blockSize])
            let length = Self.varint(bytes, &offset)
            string.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset..<offset + length]))
            offset += length
            for _ in 0..<v % Self.blockSize {
                let shared = Self.varint(bytes, &offset)
                let rest = Self.varint(bytes, &offset)
                string.removeLast(string.count - shared)
                string.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset..<offset + rest]))
                offset += rest
            }
        }
        return string.withUnsafeBufferPointer(body)
    }

    /// String `v`'s bytes.
    func string(_ v: Int) -> [UInt8] { withString(v) { Array($0) } }

    /// The first string of `b`'s block, read in place.
    private func blockHead(_ b: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var offset = Int(blockStarts[b])
        let length = Self.varint(bytes, &offset)
        return UnsafeBufferPointer(rebasing: bytes[offset..<offset + length])
    }

    /// The number of the string equal to `target`, if any (the strings in UTF-8 byte order).
    func index(of target: UnsafeBufferPointer<UInt8>) -> Int? {
        guard count > 0 else { return nil }
        return bytes.withUnsafeBufferPointer { bytes -> Int? in
            // The last block whose head is at most `target`.
            var lo = 0, hi = blockStarts.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if UTF8Order.compare(blockHead(mid, bytes), target) <= 0 { lo = mid + 1 } else { hi = mid }
            }
            guard lo > 0 else { return nil }
            let block = lo - 1
            let first = block * Self.blockSize
            for v in first..<min(first + Self.blockSize, count) {
                let order = withString(v) { UTF8Order.compare($0, target) }
                if order == 0 { return v }
                if order > 0 { return nil }
            }
            return nil
        }
    }

    /// Whether every block decodes within `bytes` as `count` strings, each shared prefix no
    /// longer than the string before it: what a file must pass before its strings are read.
    var isWellFormed: Bool {
        guard blockStarts.count == (count + Self.blockSize - 1) / Self.blockSize else { return false }
        return bytes.withUnsafeBufferPointer { bytes in
            var offset = 0, previousLength = 0
            for v in 0..<count {
                if v % Self.blockSize == 0 {
                    guard Int(blockStarts[v / Self.blockSize]) == offset, let length = Self.checkedVarint(bytes, &offset),
                        length <= bytes.count - offset
                    else { return false }
                    offset += length
                    previousLength = length
                } else {
                    guard let shared = Self.checkedVarint(bytes, &offset), shared <= previousLength,
                        let rest = Self.checkedVarint(bytes, &offset), rest <= bytes.count - offset
                    else { return false }
                    offset += rest
                    previousLength = shared + rest
                }
            }
            return offset == bytes.count
        }
    }

    // MARK: LEB128

    static func appendVarint(_ value: Int, to bytes: inout [UInt8]) {
        var value = UInt64(value)
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A varint of well-formed bytes (checked on load).
    @inline(__always) private static func varint(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: inout Int) -> Int {
        var value = 0, shift = 0
        while true {
            let byte = bytes[offset]
            offset += 1
            value |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// A varint, or nil if it runs past the end or past 32 bits (no string is that long).
    private static func checkedVarint(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: inout Int) -> Int? {
        var value = 0, shift = 0
        while offset < bytes.count, shift <= 28 {
            let byte = bytes[offset]
            offset += 1
            value |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return value <= Int(UInt32.max) ? value : nil }
            shift += 7
        }
        return nil
    }
}
