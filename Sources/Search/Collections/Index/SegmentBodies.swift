/// The JSON bodies of a segment's documents, in one arena (no array per document): body `d`
/// ends at `ends[d]`. In memory as built; once the segment is saved, in its file, read with
/// `pread` when a hit shows one: not kept in the process's own memory (the largest part of a
/// collection's index, and the one a query reads least), and never mapped, so that a file
/// another process truncates costs the bodies it held, not the server (SIGBUS).
struct SegmentBodies: Sendable {
    private enum Storage: Sendable {
        case memory(bytes: [UInt8], ends: [Int])
        /// The arena at `offset` in `file`; its ends in memory (4 bytes a document).
        case file(OpenFile, offset: Int, ends: BodyEnds)
    }

    private let storage: Storage

    /// What a body reads as when its file no longer holds it (truncated by another process):
    /// JSON null, so a hit still answers, with no document.
    static let unreadable = Array("null".utf8)

    /// Most bytes read from a file at once when many bodies are read in order (a merge's).
    static let readWindow = 4 << 20

    /// Most bytes between two bodies a query reads that one read spans rather than two (a read
    /// is a system call: a few microseconds; 16 KiB more copied costs about one).
    static let readGap = 16 << 10

    init(bytes: [UInt8], ends: [Int]) {
        storage = .memory(bytes: bytes, ends: ends)
    }

    /// Bodies in a segment file, at `offset` (checked by the caller: ends ascending, the last
    /// one the arena's size, the arena within the file).
    init(file: OpenFile, offset: Int, ends: BodyEnds) {
        storage = .file(file, offset: offset, ends: ends)
    }

    var isInFile: Bool {
        if case .file = storage { return true }
        return false
    }

    /// Body `d`, copied out (``unreadable`` if its file lost it).
    func body(_ d: Int) -> [UInt8] {
        switch storage {
        case .memory(let bytes, let ends):
            return Array(bytes[(d == 0 ? 0 : ends[d - 1])..<ends[d]])
        case .file(let file, let offset, let ends):
            let start = ends.start(d)
            return (try? file.bytes(at: offset + start, count: ends[d] - start)) ?? Self.unreadable
        }
    }

    /// The bodies of `documents` (any order, repeats allowed), in their order: from a file in as
    /// few reads as bodies close together allow (``readGap``), not one per document (a query's
    /// candidates cost 48 reads each before).
    func bodies(_ documents: [Int]) -> [[UInt8]] {
        guard case .file(let file, let offset, let ends) = storage, documents.count > 1 else { return documents.map(body) }
        var result = [[UInt8]](repeating: [], count: documents.count)
        let order = documents.indices.sorted { documents[$0] < documents[$1] }
        var first = 0
        while first < order.count {
            // A run of documents whose bodies lie within `readGap` of each other, one read.
            let start = ends.start(documents[order[first]])
            var last = first
            while last + 1 < order.count {
                let next = documents[order[last + 1]]
                guard ends.start(next) - ends[documents[order[last]]] <= Self.readGap, ends[next] - start <= Self.readWindow else { break }
                last += 1
            }
            let end = ends[documents[order[last]]]
            if let window = try? file.bytes(at: offset + start, count: end - start) {
                for i in first...last {
                    let d = documents[order[i]]
                    result[order[i]] = Array(window[(ends.start(d) - start)..<(ends[d] - start)])
                }
            } else {
                for i in first...last { result[order[i]] = Self.unreadable }
            }
            first = last + 1
        }
        return result
    }

    /// Calls `visit` with each document of `range` in order and its body; from a file, one read
    /// per ``readWindow`` of bodies, not one per document.
    func forEachBody(in range: Range<Int>, _ visit: (Int, [UInt8]) -> Void) {
        guard case .file(let file, let offset, let ends) = storage else {
            for d in range { visit(d, body(d)) }
            return
        }
        var d = range.lowerBound
        while d < range.upperBound {
            let start = ends.start(d)
            var last = d
            while last + 1 < range.upperBound, ends[last + 1] - start <= Self.readWindow { last += 1 }
            if let window = try? file.bytes(at: offset + start, count: ends[last] - start) {
                for e in d...last { visit(e, Array(window[(ends.start(e) - start)..<(ends[e] - start)])) }
            } else {
                for e in d...last { visit(e, Self.unreadable) }
            }
            d = last + 1
        }
    }

    /// The bodies of the merged documents (``SegmentMerge``) in their new order, copied from each
    /// part's arena in that part's order.
    init(merging parts: [SegmentBodies], _ merge: SegmentMerge) {
        let arenas = parts.map { $0.inMemory() }
        var ends: [Int] = []
        ends.reserveCapacity(merge.count)
        var total = 0
        for source in merge.sources {
            let partEnds = arenas[source.part].ends, d = Int(source.document)
            total += partEnds[d] - (d == 0 ? 0 : partEnds[d - 1])
            ends.append(total)
        }
        let bytes = [UInt8](unsafeUninitializedCapacity: total) { merged, initialized in
            for (p, arena) in arenas.enumerated() {
                arena.bytes.withUnsafeBufferPointer { from in
                    for (d, n) in merge.numbers[p].enumerated() where n != SegmentMerge.dropped {
                        let start = d == 0 ? 0 : arena.ends[d - 1], length = arena.ends[d] - start
                        let at = n == 0 ? 0 : ends[Int(n) - 1]
                        guard length > 0, let source = from.baseAddress, let target = merged.baseAddress else { continue }
                        (target + at).initialize(from: source + start, count: length)
                    }
                }
            }
            initialized = total
        }
        self.init(bytes: bytes, ends: ends)
    }

    /// The arena and its ends in memory: as built, or read back from the file in one read (a
    /// merge's input); a body the file no longer holds reads as ``unreadable``.
    private func inMemory() -> (bytes: [UInt8], ends: [Int]) {
        switch storage {
        case .memory(let bytes, let ends):
            return (bytes, ends)
        case .file(let file, let offset, let ends):
            if let bytes = try? file.bytes(at: offset, count: ends.count == 0 ? 0 : ends[ends.count - 1]) { return (bytes, ends.all) }
            var bytes: [UInt8] = [], all: [Int] = []
            for d in 0..<ends.count {
                bytes += body(d)
                all.append(bytes.count)
            }
            return (bytes, all)
        }
    }

    /// Calls `body` with the ends.
    func withEnds<Value>(_ body: ([Int]) -> Value) -> Value {
        switch storage {
        case .memory(_, let ends): return body(ends)
        case .file(_, _, let ends): return body(ends.all)
        }
    }

    /// Calls `body` with the arena and the ends, wherever they are (to write them to a file).
    func withBuffers<Value>(_ body: (UnsafeRawBufferPointer, UnsafeBufferPointer<Int>) throws(IndexFileError) -> Value) throws(IndexFileError) -> Value {
        let (bytes, ends): ([UInt8], [Int])
        switch storage {
        case .memory(let memoryBytes, let memoryEnds):
            (bytes, ends) = (memoryBytes, memoryEnds)
        case .file(let file, let offset, let fileEnds):
            // Saved elsewhere before (another directory): read back whole, once.
            (bytes, ends) = (try file.bytes(at: offset, count: fileEnds.count == 0 ? 0 : fileEnds[fileEnds.count - 1]), fileEnds.all)
        }
        // The typed error travels through the untyped `withUnsafe…` closures in a Result.
        return try bytes.withUnsafeBytes { raw in
            ends.withUnsafeBufferPointer { ends in Result { () throws(IndexFileError) in try body(raw, ends) } }
        }.get()
    }
}
