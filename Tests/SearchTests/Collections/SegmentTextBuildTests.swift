import Foundation
import Testing

@testable import Search

/// A segment's text index is tokenized in chunks on all cores, each chunk's terms interned on its
/// own and then in one dictionary (`SegmentText.init(_:layout:)`), and a merge builds it from the
/// parts' postings: either must be the index that tokenizing each document's searched texts one
/// by one makes, term for term and posting for posting, whatever the spellings (capitals, accents
/// composed or not, letters that fold to ASCII, arrays mixing them).
@Suite struct SegmentTextBuildTests {
    private typealias F = CollectionFixtures

    /// The index by the plainest rule: every searched text of every document tokenized in turn.
    static func tokenizingEachDocument(_ documents: [CollectionDocument], layout: SchemaLayout) -> SegmentText {
        var interner = TermInterner(expectedTerms: 1_024)
        var buffer = TokenBuffer()
        var entries: [[UInt64]] = []
        for document in documents {
            var local: [UInt64] = []
            for (field, weight) in layout.searched {
                let texts: [String]
                switch document.values[field] {
                case .string(let text)?: texts = [text]
                case .strings(let array)?: texts = array
                default: texts = []
                }
                for text in texts {
                    Normalizer.scan(text, into: &buffer)
                    for span in buffer.spans { local.append(UInt64(interner.intern(buffer.units(of: span))) << 5 | UInt64(weight)) }
                }
            }
            local.sort()
            var kept: [UInt64] = []
            for entry in local where kept.last.map({ $0 >> 5 != entry >> 5 }) ?? true { kept.append(entry) }
            entries.append(kept)
        }
        let (dictionary, renumber) = TermDictionary.sorting(interner)
        var lists = [[UInt32]](repeating: [], count: dictionary.termCount)
        for (d, kept) in entries.enumerated() {
            for entry in kept { lists[Int(renumber[Int(entry >> 5)])].append(UInt32(d) | UInt32(entry & 31) << SegmentText.documentBits) }
        }
        var starts = [0]
        for list in lists { starts.append(starts.last! + list.count) }
        return SegmentText(dictionary: dictionary, postings: lists.flatMap { $0 }, postingStarts: starts)
    }

    static func expectSame(_ a: SegmentText, _ b: SegmentText) {
        #expect(a.dictionary.termUnits == b.dictionary.termUnits)
        #expect(a.dictionary.termStarts == b.dictionary.termStarts)
        #expect(a.dictionary.termKeys == b.dictionary.termKeys)
        #expect(a.dictionary.runEnds == b.dictionary.runEnds)
        #expect(a.postingStarts == b.postingStarts)
        #expect(a.postings == b.postings)
    }

    /// Words spelled every way a value can be: as folded, with capitals, accented (composed and
    /// decomposed), with a letter that folds to ASCII (the Kelvin sign), and empty.
    static let words = [
        "red", "Red", "RED", "über", "Über", "u\u{308}ber", "U\u{308}BER", "\u{212A}elvin", "kelvin", "désk", "DÉSK",
        "straße", "STRASSE", "a/b.c", "A/B.C", "", "x-y_z", "İstanbul", "istanbul", "ΟΔΟΣ", "οδος",
    ]

    static func documents(count: Int, seed: UInt64) -> [CollectionDocument] {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        func phrase() -> String { (0..<1 + next(3)).map { _ in words[next(words.count)] }.joined(separator: next(2) == 0 ? " " : "/") }
        return (0..<count).map { i in
            F.product(
                "p\(i)", title: next(5) == 0 ? nil : phrase(), tags: next(3) == 0 ? nil : (0..<next(4)).map { _ in words[next(words.count)] },
                description: next(2) == 0 ? nil : phrase(), brand: phrase(), price: Double(next(9)))
        }
    }

    @Test(arguments: [1, 30, 700, 5_000])
    func theTextIndexIsTheOneTokenizingEachDocumentMakes(count: Int) {
        let layout = SchemaLayout(F.products)
        let documents = Self.documents(count: count, seed: UInt64(count))
        let segment = CollectionSegment(documents, layout: layout)
        let ordered = (0..<segment.count).map { segment.document($0, decoder: CollectionDocumentDecoder(schema: F.products))! }
        Self.expectSame(segment.text, Self.tokenizingEachDocument(ordered, layout: layout))
    }

    @Test func theMergedSegmentsTextIsTheSameToo() {
        let layout = SchemaLayout(F.products)
        let decoder = CollectionDocumentDecoder(schema: F.products)
        let parts = [Self.documents(count: 400, seed: 1), Self.documents(count: 300, seed: 2)].enumerated().map { p, documents in
            CollectionSnapshot.Part(CollectionSegment(documents.map { document in
                try! decoder.decode(Array(String(decoding: document.body, as: UTF8.self).replacingOccurrences(of: "\"p", with: "\"q\(p)-").utf8))
            }, layout: layout))
        }
        let merged = CollectionSegment(merging: parts, layout: layout)
        let ordered = (0..<merged.count).map { merged.document($0, decoder: decoder)! }
        Self.expectSame(merged.text, Self.tokenizingEachDocument(ordered, layout: layout))
    }
}
