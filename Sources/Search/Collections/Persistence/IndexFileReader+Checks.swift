/// The checks a persisted index's arrays must pass before they are served: every offset and
/// document number within what it indexes into, so that a file that passed its checksum but was
/// written wrong still cannot make a query read out of bounds.
extension IndexFileReader {
    /// `ends` ascending, each at most `limit`, and (with `last`) ending exactly there.
    func checkEnds<Value: BinaryInteger>(
        _ ends: some Collection<Value>, upTo limit: Int, endingAt last: Int? = nil, _ what: String
    ) throws(IndexFileError) {
        var previous = 0
        for end in ends {
            let value = Int(end)
            guard value >= previous, value <= limit else { throw IndexFileError(.inconsistent, path: path, "\(what): \(value) out of order or past \(limit)") }
            previous = value
        }
        if let last { try check(previous == last, "\(what) ends at \(previous), not \(last)") }
    }

    /// Every value below `limit`.
    func checkBelow<Value: BinaryInteger>(_ values: [Value], _ limit: Int, _ what: String) throws(IndexFileError) {
        let bound = UInt64(max(limit, 0))
        for value in values where UInt64(value) >= bound {
            throw IndexFileError(.inconsistent, path: path, "\(what): \(value) not below \(limit)")
        }
    }

    /// `values` strictly ascending.
    func checkAscending(_ values: [UInt32], _ what: String) throws(IndexFileError) {
        for i in values.indices.dropFirst() where values[i - 1] >= values[i] {
            throw IndexFileError(.inconsistent, path: path, "\(what): \(values[i]) after \(values[i - 1])")
        }
    }

    /// A document set of `capacity`.
    func documentSet(capacity: Int) throws(IndexFileError) -> DocumentSet {
        let words = try array(of: UInt64.self, count: (capacity + 63) / 64)
        let extra = words.count * 64 - capacity
        if extra > 0, let last = words.last { try check(last >> UInt64(64 - extra) == 0, "a document set holds a number past \(capacity)") }
        return DocumentSet(words: words, capacity: capacity)
    }
}
