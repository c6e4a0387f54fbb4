import Foundation
import Testing

@testable import Search

#if canImport(Glibc)
import Glibc
#endif

/// A saved segment file truncated by another process while the index serves from it (issue 25):
/// its bodies were read through a mapping, and the first hit on a lost page killed the server
/// with SIGBUS. They are read with `pread` now: a lost body reads as JSON null, and searches,
/// lookups and merges go on. (Before the change, these tests crashed the test process.)
@Suite struct CollectionTruncatedFileTests {
    private typealias F = CollectionFixtures

    private func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = NSTemporaryDirectory() + "signalbox-truncated-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    private static func truncateSegments(in directory: String, to size: off_t) throws {
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasSuffix(".segment") {
            #expect(truncate(directory + "/" + file, size) == 0)
        }
    }

    /// Every way a body is read, after the files were cut to `size` bytes.
    private static func expectServedWithoutBodies(_ index: CollectionIndex, count: Int) {
        let result = index.search(CollectionQuery(text: "item", limit: 20))
        #expect(result.total == count)
        #expect(result.hits.count == 20)
        #expect(result.hits.allSatisfy { $0.body == SegmentBodies.unreadable })
        #expect(index.document(id: "7") == nil)
        #expect(index.contains(id: "7"))
        #expect(index.allDocuments().isEmpty)
    }

    @Test(arguments: [0, 4_096])
    func aRestoredIndexOutlivesItsTruncatedFiles(size: Int) throws {
        try withDirectory { directory in
            let documents = (0..<3_000).map { F.product("\($0)", title: "Item \($0)", price: Double($0)) }
            try CollectionIndex(schema: F.products, documents: documents).save(to: directory, epoch: "e")
            let (restored, _) = try CollectionIndex.restore(from: directory)
            #expect(restored.document(id: "7")?.values[0] == .string("Item 7"))
            try Self.truncateSegments(in: directory, to: off_t(size))
            Self.expectServedWithoutBodies(restored, count: 3_000)
            // It still takes writes.
            restored.apply((0..<50).map { .upsert(F.product("new\($0)", title: "Item new \($0)")) })
            restored.waitForMerges()
            #expect(restored.document(id: "new3")?.values[0] == .string("Item new 3"))
        }
    }

    @Test func aSavedIndexOutlivesItsTruncatedFiles() throws {
        try withDirectory { directory in
            let index = CollectionIndex(schema: F.products, documents: (0..<3_000).map { F.product("\($0)", title: "Item \($0)") })
            try index.save(to: directory, epoch: "e")  // its bodies are read from the files from now on
            try Self.truncateSegments(in: directory, to: 0)
            Self.expectServedWithoutBodies(index, count: 3_000)
        }
    }
}
