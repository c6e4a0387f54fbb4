import Foundation
import Testing

@testable import Search

/// A merge builds its segment from the merged parts' structures (`CollectionSegment(merging:)`),
/// not from their bodies decoded and indexed again: the segment must be the one a build from the
/// parts' live documents makes, array for array.
@Suite struct SegmentMergeTests {
    private typealias F = CollectionFixtures

    /// The products schema, and the same without a rank (documents then ordered by id alone).
    static let schemas: [CollectionSchema] = [
        F.products, CollectionSchema(idField: F.products.idField, fields: F.products.fields, rank: nil),
    ]

    /// Deterministic documents with every type, values shared between documents, values missing,
    /// rank ties, and a value spelled with capitals.
    static func documents(_ range: Range<Int>) -> [CollectionDocument] {
        let words = ["red", "Blue", "green", "kettle", "lamp", "über", "chair", "désk", "table", "mug"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var all: [CollectionDocument] = []
        for i in 0..<range.upperBound {
            let title = (0..<1 + next(3)).map { _ in words[next(words.count)] }.joined(separator: " ")
            let document = F.product(
                "p\(i * 7919 % 1_000)-\(i)", title: title, tags: next(4) == 0 ? nil : (0..<next(3)).map { _ in words[next(words.count)] },
                description: next(3) == 0 ? nil : "item \(i) \(words[next(words.count)])", brand: next(5) == 0 ? nil : ["Acme", "bolt", "ACME Tools", "zeta"][next(4)],
                price: next(6) == 0 ? nil : Double(next(40)), inStock: next(4) == 0 ? nil : next(2) == 0,
                store: next(3) == 0 ? nil : (Double(next(170)) - 85, Double(next(350)) - 175))
            if range.contains(i) { all.append(document) }
        }
        return all
    }

    @Test(arguments: [0, 1])
    func aMergedSegmentIsTheOneItsLiveDocumentsBuild(schemaIndex: Int) {
        let schema = Self.schemas[schemaIndex]
        let layout = SchemaLayout(schema)
        let decoder = CollectionDocumentDecoder(schema: schema)
        let sets = [Self.documents(0..<300), Self.documents(300..<420), Self.documents(420..<1_000)].map { documents in
            documents.map { try! decoder.decode($0.body) }
        }
        var parts = sets.map { CollectionSnapshot.Part(CollectionSegment($0, layout: layout)) }
        var live: [CollectionDocument] = []
        for p in parts.indices {
            let segment = parts[p].segment
            for d in 0..<segment.count {
                if (d * 13 + p) % 5 == 0 {
                    parts[p].deleted.insert(UInt32(d))
                    parts[p].deletedCount += 1
                } else {
                    live.append(segment.document(d, decoder: decoder)!)
                }
            }
        }
        let merged = CollectionSegment(merging: parts, layout: layout)
        let built = CollectionSegment(live, layout: layout)
        Self.expectSame(merged, built)
    }

    @Test func aMergeOfOnePartWithNothingDeletedCopiesIt() {
        let layout = SchemaLayout(F.products)
        let segment = CollectionSegment(Self.documents(0..<200), layout: layout)
        Self.expectSame(CollectionSegment(merging: [CollectionSnapshot.Part(segment)], layout: layout), segment)
    }

    static func expectSame(_ a: CollectionSegment, _ b: CollectionSegment) {
        #expect(a.count == b.count)
        #expect(a.ids == b.ids)
        #expect(a.idTable.slots == b.idTable.slots)
        #expect(a.ranks.map(\.bitPattern) == b.ranks.map(\.bitPattern))
        #expect((0..<a.count).allSatisfy { a.body($0) == b.body($0) })
        #expect(a.text.dictionary.termUnits == b.text.dictionary.termUnits)
        #expect(a.text.dictionary.termStarts == b.text.dictionary.termStarts)
        #expect(a.text.dictionary.termKeys == b.text.dictionary.termKeys)
        #expect(a.text.dictionary.runEnds == b.text.dictionary.runEnds)
        #expect(a.text.postingStarts == b.text.postingStarts)
        #expect(a.text.postings == b.text.postings)
        #expect(a.columns.count == b.columns.count)
        for (x, y) in zip(a.columns, b.columns) {
            switch (x, y) {
            case (.strings(let x), .strings(let y)):
                #expect(x.values.bytes == y.values.bytes)
                #expect(x.values.blockStarts == y.values.blockStarts)
                #expect(x.values.count == y.values.count)
                #expect(x.spelled == y.spelled)
                #expect(x.spellings.bytes == y.spellings.bytes)
                #expect(x.spellings.blockStarts == y.spellings.blockStarts)
                #expect(x.valueDocuments == y.valueDocuments)
                #expect(x.valueStarts == y.valueStarts)
                #expect(x.documentValues == y.documentValues)
                #expect(x.documentStarts == y.documentStarts)
                #expect(x.present == y.present)
            case (.numbers(let x), .numbers(let y)):
                #expect(x.values.map(\.bitPattern) == y.values.map(\.bitPattern))
                #expect(x.order == y.order)
            case (.booleans(let x), .booleans(let y)):
                #expect(x.values == y.values)
                #expect(x.trueDocuments == y.trueDocuments)
                #expect(x.falseDocuments == y.falseDocuments)
            case (.geo(let x), .geo(let y)):
                #expect(x.latitudes.map(\.bitPattern) == y.latitudes.map(\.bitPattern))
                #expect(x.longitudes.map(\.bitPattern) == y.longitudes.map(\.bitPattern))
                #expect(x.cells == y.cells)
            default:
                Issue.record("columns of different types")
            }
        }
    }
}
