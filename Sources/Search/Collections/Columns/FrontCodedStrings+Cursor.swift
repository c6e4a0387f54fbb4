extension FrontCodedStrings {
    /// Reads the strings in ascending order, each from the one before: a merge walks every value
    /// of a column in order, and decoding each from its block's head (``withString(_:_:)``, an
    /// array made each time) was most of a string column's merge (issue 25).
    struct Cursor {
        private let strings: FrontCodedStrings
        /// The number of the string in ``current``; -1 before the first move.
        private(set) var index = -1
        /// Where the string after ``current`` starts in the encoded bytes.
        private var offset = 0
        /// String ``index``'s bytes.
        private(set) var current: [UInt8] = []

        init(_ strings: FrontCodedStrings) {
            self.strings = strings
        }

        /// Moves to string `v`, at or after the current one; reads only the strings between
        /// them, or from `v`'s block head when that is closer.
        mutating func move(to v: Int) {
            precondition(v >= index && v < strings.count, "string \(v) of \(strings.count), from \(index)")
            guard v != index else { return }
            let blockSize = FrontCodedStrings.blockSize
            strings.bytes.withUnsafeBufferPointer { bytes in
                if index < 0 || v / blockSize != index / blockSize {
                    let block = v / blockSize
                    offset = Int(strings.blockStarts[block])
                    let length = FrontCodedStrings.varint(bytes, &offset)
                    current.removeAll(keepingCapacity: true)
                    current.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset..<offset + length]))
                    offset += length
                    index = block * blockSize
                }
                while index < v {
                    let shared = FrontCodedStrings.varint(bytes, &offset)
                    let rest = FrontCodedStrings.varint(bytes, &offset)
                    current.removeLast(current.count - shared)
                    current.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset..<offset + rest]))
                    offset += rest
                    index += 1
                }
            }
        }
    }
}
