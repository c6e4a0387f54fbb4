import Foundation
import Testing

@testable import Search

/// A query's bodies read from a segment file in batches (`SegmentBodies.bodies(_:)`): each
/// document gets its own body whatever the order, repeats and distances between them (one read
/// spans neighbours, another starts past `readGap`), the same as from memory and as read one by one.
@Suite struct SegmentBodiesTests {
    private typealias F = CollectionFixtures

    @Test func batchedReadsGiveEachDocumentItsOwnBody() throws {
        let directory = NSTemporaryDirectory() + "signalbox-bodies-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Bodies of a few hundred bytes: 3,000 of them span several read gaps.
        let filler = String(repeating: "x", count: 300)
        let documents = (0..<3_000).map { F.product("\($0)", title: "Item \($0) \(filler)", price: Double($0)) }
        let built = CollectionIndex(schema: F.products, documents: documents)
        let inMemory = built.snapshot.parts[0].segment.bodies
        try built.save(to: directory, epoch: "e")
        let (restored, _) = try CollectionIndex.restore(from: directory)
        let inFile = restored.snapshot.parts[0].segment.bodies
        #expect(inFile.isInFile && !inMemory.isInFile)
        let wanted = [2_999, 5, 6, 7, 1_500, 5, 0, 2_998, 40, 1_000, 7]
        let expected = wanted.map { inMemory.body($0) }
        #expect(inFile.bodies(wanted) == expected)
        #expect(wanted.map { inFile.body($0) } == expected)
        #expect(inMemory.bodies(wanted) == expected)
        #expect(inFile.bodies([]) == [])
        #expect(inFile.bodies([42]) == [inMemory.body(42)])
    }
}
