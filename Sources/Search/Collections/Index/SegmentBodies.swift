/// The JSON bodies of a segment's documents, in one arena (no array per document): body `d`
/// ends at `ends[d]`. In memory as built; once the segment is saved, in its file, mapped: a
/// body is then read from the page cache when a hit shows it, not kept in the process's own
/// memory (the largest part of a collection's index, and the one a query reads least).
struct SegmentBodies: Sendable {
    private enum Storage: Sendable {
        case memory(bytes: [UInt8], ends: [Int])
        case mapped(bytes: MappedArray<UInt8>, ends: MappedArray<Int>)
    }

    private let storage: Storage

    init(bytes: [UInt8], ends: [Int]) {
        storage = .memory(bytes: bytes, ends: ends)
    }

    /// Bodies in a segment file (checked by the reader: ends ascending, the last one the bytes' count).
    init(mappedBytes: MappedArray<UInt8>, ends: MappedArray<Int>) {
        storage = .mapped(bytes: mappedBytes, ends: ends)
    }

    var isMapped: Bool {
        if case .mapped = storage { return true }
        return false
    }

    /// Body `d`, copied out.
    func body(_ d: Int) -> [UInt8] {
        switch storage {
        case .memory(let bytes, let ends):
            return Array(bytes[(d == 0 ? 0 : ends[d - 1])..<ends[d]])
        case .mapped(let bytes, let ends):
            let start = d == 0 ? 0 : ends[d - 1], end = ends[d]
            return Array(UnsafeBufferPointer(rebasing: bytes.buffer[start..<end]))
        }
    }

    /// Calls `body` with the arena and the ends, wherever they are (to write them to a file).
    func withBuffers<Value>(_ body: (UnsafeRawBufferPointer, UnsafeBufferPointer<Int>) throws(IndexFileError) -> Value) throws(IndexFileError) -> Value {
        switch storage {
        case .memory(let bytes, let ends):
            // The typed error travels through the untyped `withUnsafe…` closures in a Result.
            return try bytes.withUnsafeBytes { raw in
                ends.withUnsafeBufferPointer { ends in Result { () throws(IndexFileError) in try body(raw, ends) } }
            }.get()
        case .mapped(let bytes, let ends):
            return try body(UnsafeRawBufferPointer(bytes.buffer), ends.buffer)
        }
    }
}
