import Base
import Dispatch
import Foundation

/// The inverted index of one segment's searched fields: a sorted term dictionary and, per term,
/// the documents that hold it (ascending), each with the weight of the heaviest searched field
/// it is found in.
struct SegmentText: Sendable {
    /// A posting is `document | weight << documentBits`.
    static let documentBits: UInt32 = 27
    static let documentMask: UInt32 = (1 << 27) - 1
    /// Most documents a segment numbers (27 bits of a posting).
    static let maxDocuments = 1 << 27

    let dictionary: TermDictionary
    let postings: [UInt32]
    /// Postings of term `t`: `postings[postingStarts[t]..<postingStarts[t + 1]]`.
    let postingStarts: [Int]

    /// An index as persisted, already checked.
    init(dictionary: TermDictionary, postings: [UInt32], postingStarts: [Int]) {
        self.dictionary = dictionary
        self.postings = postings
        self.postingStarts = postingStarts
    }

    /// Indexes the searched fields of `documents`, numbered by their position.
    init(_ documents: [CollectionDocument], layout: SchemaLayout) {
        // 1. Tokenize and intern per chunk of documents, on all cores.
        let chunks = TextChunk.tokenize(documents, layout: layout)
        // 2. One dictionary: each chunk's distinct terms interned globally, then sorted.
        var interner = TermInterner(expectedTerms: chunks.reduce(0) { $0 + $1.interner.count })
        let globalIds = chunks.map { chunk in
            (0..<chunk.interner.count).map { interner.intern(chunk.interner.units(of: $0)) }
        }
        let (dictionary, renumber) = TermDictionary.sorting(interner)
        self.dictionary = dictionary
        // 3. Postings by counting sort: documents visited in order keep each list ascending.
        let termCount = dictionary.termCount
        var starts = [Int](repeating: 0, count: termCount + 1)
        var terms: [[UInt32]] = []
        terms.reserveCapacity(chunks.count)
        for (c, chunk) in chunks.enumerated() {
            let ids = globalIds[c]
            let translated = chunk.entries.map { renumber[Int(ids[Int($0 >> 5)])] }
            for term in translated { starts[Int(term) + 1] += 1 }
            terms.append(translated)
        }
        for t in 0..<termCount { starts[t + 1] += starts[t] }
        var fill = starts
        var postings = [UInt32](repeating: 0, count: starts[termCount])
        var document: UInt32 = 0
        for (c, chunk) in chunks.enumerated() {
            var entry = 0
            for end in chunk.documentEnds {
                while entry < Int(end) {
                    let term = Int(terms[c][entry])
                    postings[fill[term]] = document | (chunk.entries[entry] & 31) << Self.documentBits
                    fill[term] += 1
                    entry += 1
                }
                document += 1
            }
        }
        self.postings = postings
        postingStarts = starts
    }
}

/// The terms of a run of documents, interned locally (in parallel with other chunks).
private struct TextChunk: Sendable {
    var interner = TermInterner(expectedTerms: 1_024)
    /// Per document, its distinct terms as `local id << 5 | weight` (lightest weight kept).
    var entries: [UInt32] = []
    var documentEnds: [UInt32] = []

    init(_ documents: ArraySlice<CollectionDocument>, layout: SchemaLayout) {
        var buffer = TokenBuffer()
        var local: [UInt32] = []
        documentEnds.reserveCapacity(documents.count)
        // By index, the searched fields' numbers and weights taken once: iterating the documents
        // copied each (its id, values and body retained and released), and iterating
        // `layout.searched` retained that array, once a document each (issue 25).
        let fields = layout.searched.map(\.field), weights = layout.searched.map(\.weight)
        for d in documents.indices {
            local.removeAll(keepingCapacity: true)
            for s in fields.indices {
                let weight = weights[s]
                switch documents[d].values[fields[s]] {
                case .string(let text)?: add(text, weight: weight, buffer: &buffer, to: &local)
                case .strings(let texts)?: for text in texts { add(text, weight: weight, buffer: &buffer, to: &local) }
                default: break
                }
            }
            local.sort()
            var previous = UInt32.max
            for entry in local where entry >> 5 != previous {
                entries.append(entry)
                previous = entry >> 5
            }
            documentEnds.append(UInt32(entries.count))
        }
    }

    private mutating func add(_ text: String, weight: UInt32, buffer: inout TokenBuffer, to local: inout [UInt32]) {
        Normalizer.scan(text, into: &buffer)
        // Each token's units read in place (an `ArraySlice` of them retained the buffer once a token).
        let spans = buffer.spans
        buffer.units.withUnsafeBufferPointer { units in
            for span in spans {
                local.append(interner.add(UnsafeBufferPointer(rebasing: units[Int(span.unitStart)..<Int(span.unitEnd)])).id << 5 | weight)
            }
        }
    }

    static func tokenize(_ documents: [CollectionDocument], layout: SchemaLayout) -> [TextChunk] {
        let count = documents.count < 4_096 ? 1 : max(1, ProcessInfo.processInfo.activeProcessorCount) * 4
        let size = (documents.count + count - 1) / count
        let results = Locked<[TextChunk?]>(Array(repeating: nil, count: count))
        DispatchQueue.concurrentPerform(iterations: count) { i in
            let range = min(i * size, documents.count)..<min((i + 1) * size, documents.count)
            let chunk = TextChunk(documents[range], layout: layout)
            results.withLock { $0[i] = chunk }
        }
        return results.withLock { $0.compactMap { $0 } }
    }
}
