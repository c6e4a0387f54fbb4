import Foundation
import SearchTesting
import Testing

@testable import Search

/// A persisted index (`CollectionIndex+Persistence`) answers exactly as the index it was saved
/// from and as a fresh build of the same documents; a damaged file is refused, never served.
@Suite struct CollectionPersistenceTests {
    private typealias F = CollectionFixtures

    /// A directory of its own under the system's temporary one, removed after `body`.
    private func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = NSTemporaryDirectory() + "signalbox-index-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    /// Product `sku` drawn from `random` (shared with the service's tests: `RandomProducts`).
    private static func randomProduct(_ sku: Int, _ random: inout RandomProducts) -> CollectionDocument {
        try! F.decode(random.product(sku: sku))
    }

    /// Queries over text, filters, facets, sort and geo: what must not differ after a restart.
    private static func queries(_ schema: CollectionSchema) -> [CollectionQuery] {
        let parser = FilterParser(schema: schema)
        let filters = ["price > 20", "brand = acme", "inStock = true AND price <= 30", "tags = lamp OR brand = Globex",
                       "_geoRadius(0, 0, 5000000)", "NOT inStock = false"].map { try! parser.parse($0) }
        var queries: [CollectionQuery] = []
        for text in ["", "lamp", "cha", "tabel", "lampe desk", "sofa "] {
            for filter in [nil] + filters {
                queries.append(CollectionQuery(text: text, filter: filter, facets: ["brand", "price", "inStock", "tags"], limit: 50))
            }
            queries.append(CollectionQuery(text: text, sort: [.field("price", descending: true)], limit: 20, offset: 3))
            queries.append(CollectionQuery(text: text, sort: [.field("brand", descending: false)], limit: 20))
        }
        return queries
    }

    /// `result` with each facet value case-folded and the values in order: a facet shows a
    /// value as first spelled in a segment, so indexes cut into other segments may spell it
    /// otherwise ("Acme" or "acme"), and only then.
    private static func foldingFacetSpellings(_ result: CollectionSearchResult) -> CollectionSearchResult {
        var result = result
        result.facets = result.facets.mapValues { counts in
            counts.map { FacetCount(value: StringColumn.fold($0.value), count: $0.count) }
                .sorted { ($0.count, $1.value) > ($1.count, $0.value) }
        }
        return result
    }

    /// The same answers to every query; `segmentedAlike`: cut into the same segments, so facet
    /// values are spelled alike too.
    private func expectSameAnswers(
        _ a: CollectionIndex, _ b: CollectionIndex, _ what: String, segmentedAlike: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(a.count == b.count, "\(what): counts", sourceLocation: sourceLocation)
        for query in Self.queries(a.schema) {
            var x = a.search(query), y = b.search(query)
            if !segmentedAlike { (x, y) = (Self.foldingFacetSpellings(x), Self.foldingFacetSpellings(y)) }
            #expect(Bool(x == y), "\(what): \(query.text) \(String(describing: query.filter))", sourceLocation: sourceLocation)
            if x != y { return }
        }
    }

    @Test(arguments: [1, 2, 3])
    func restoredIndexAnswersAsTheSavedOneAndAFreshBuild(seed: UInt64) throws {
        try withDirectory { directory in
            var random = RandomProducts(seed: seed, location: .storeObject, descriptions: true)
            var configuration = CollectionIndex.Configuration()
            configuration.recentSegmentDocuments = 8
            configuration.mergeFanIn = 2
            var schema = F.products
            var index = CollectionIndex(
                schema: schema, documents: (0..<40).map { Self.randomProduct($0, &random) }, sequence: 40, configuration: configuration)
            var sequence: Int64 = 40
            for round in 0..<30 {
                var batch: [CollectionChange] = []
                for _ in 0..<Int(random.next() % 12) + 1 {
                    let sku = Int(random.next() % 120)
                    batch.append(random.next() % 5 == 0 ? .delete(id: "\(sku)") : .upsert(Self.randomProduct(sku, &random)))
                }
                sequence += Int64(batch.count)
                index.apply(batch, through: sequence)
                if round == 15 {
                    // A schema change: the brand becomes searched; the new index is built from the documents.
                    schema = CollectionSchema(
                        idField: schema.idField,
                        fields: schema.fields.map { $0.name == "brand" ? FieldSchema(name: "brand", type: .string, search: true) : $0 },
                        rank: schema.rank)
                    let decoder = CollectionDocumentDecoder(schema: schema)
                    index = CollectionIndex(
                        schema: schema, documents: index.allDocuments().map { try! decoder.decode($0.body) }, sequence: sequence,
                        configuration: configuration)
                }
                if round % 7 == 3 || round == 29 {
                    index.waitForMerges()  // saved and compared as merged: one segmenting
                    let saved = try index.save(to: directory, epoch: "epoch-\(seed)")
                    #expect(saved.sequence == sequence)
                    let (restored, epoch) = try CollectionIndex.restore(from: directory, configuration: configuration)
                    #expect(epoch == "epoch-\(seed)")
                    #expect(restored.sequence == sequence)
                    #expect(restored.schema == schema)
                    expectSameAnswers(index, restored, "round \(round), restored")
                    let fresh = CollectionIndex(schema: schema, documents: index.allDocuments())
                    expectSameAnswers(fresh, restored, "round \(round), fresh build", segmentedAlike: false)
                    // The restored index takes writes like any other.
                    let next = Self.randomProduct(7, &random)
                    restored.apply([.upsert(next), .delete(id: "8")])
                    index.apply([.upsert(next), .delete(id: "8")])
                    restored.waitForMerges()
                    index.waitForMerges()
                    expectSameAnswers(index, restored, "round \(round), after a write")
                    index = restored
                }
            }
            // Only the manifest's segments stay on disk: saved again after the last round's write,
            // whose merge may have replaced segments the save before wrote.
            index.waitForMerges()
            _ = try index.save(to: directory, epoch: "epoch-\(seed)")
            let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".segment") }
            #expect(files.count == index.segmentCount)
        }
    }

    @Test func savingAgainWritesOnlyNewSegments() throws {
        try withDirectory { directory in
            let index = CollectionIndex(schema: F.products, documents: (0..<3_000).map { F.product("\($0)", title: "Item \($0)") })
            #expect(try index.save(to: directory, epoch: "e").segmentsWritten == index.segmentCount)
            #expect(try index.save(to: directory, epoch: "e").segmentsWritten == 0)
            index.apply([.upsert(F.product("new", title: "New item"))], through: 9)
            let saved = try index.save(to: directory, epoch: "e")
            #expect(saved.segmentsWritten == 1)
            #expect(saved.sequence == 9)
        }
    }

    /// Saves an index, damages one of its files with `damage`, and returns what restoring says.
    private func restoreError(after damage: (String) throws -> Void) throws -> IndexFileError.Reason? {
        var reason: IndexFileError.Reason?
        try withDirectory { directory in
            let index = CollectionIndex(
                schema: F.products, documents: (0..<500).map { F.product("\($0)", title: "Item \($0)", brand: "b\($0 % 7)", price: Double($0)) })
            try index.save(to: directory, epoch: "e")
            try damage(directory)
            do {
                _ = try CollectionIndex.restore(from: directory)
            } catch {
                reason = (error as? IndexFileError)?.reason
            }
        }
        return reason
    }

    private func segmentPath(_ directory: String) throws -> String {
        directory + "/" + (try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".segment") }!)
    }

    @Test func aTruncatedSegmentIsRefused() throws {
        let reason = try restoreError { directory in
            let path = try segmentPath(directory)
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
            truncate(path, off_t(size / 2))
        }
        #expect(reason == .corrupt || reason == .truncated)
    }

    @Test func aFlippedByteIsRefused() throws {
        for target in ["manifest", "segment"] {
            let reason = try restoreError { directory in
                let path = target == "manifest" ? directory + "/manifest" : try segmentPath(directory)
                var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                bytes[bytes.count / 2] ^= 0x40
                try bytes.write(to: URL(fileURLWithPath: path))
            }
            #expect(reason == .corrupt, "\(target)")
        }
    }

    @Test func aMissingFileIsRefused() throws {
        #expect(try restoreError { directory in try FileManager.default.removeItem(atPath: try segmentPath(directory)) } == .missing)
        #expect(try restoreError { directory in try FileManager.default.removeItem(atPath: directory + "/manifest") } == .missing)
        #expect(try restoreError { directory in try Data("not an index file".utf8).write(to: URL(fileURLWithPath: directory + "/manifest")) } == .unknownFormat)
    }

    @Test func aSegmentFileOfTheFormerFormatIsRefusedNotMisread() throws {
        // Version 001 kept string columns as plain arenas; its arrays read as 002's would be garbage.
        let reason = try restoreError { directory in
            let path = try segmentPath(directory)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            bytes.replaceSubrange(0..<8, with: Array("SBSEG001".utf8))
            try bytes.write(to: URL(fileURLWithPath: path))
        }
        #expect(reason == .unknownFormat)
    }

    @Test func anInconsistentFileWithAValidChecksumIsRefused() throws {
        // A segment file of another schema (fewer fields) under this manifest: checked, not served.
        try withDirectory { directory in
            let index = CollectionIndex(schema: F.products, documents: [F.product("1", title: "One")])
            try index.save(to: directory, epoch: "e")
            let other = CollectionSchema(idField: "sku", fields: [FieldSchema(name: "title", type: .string, search: true)])
            let segment = CollectionIndex(schema: other, documents: [try F.decode(#"{"sku":"1","title":"One"}"#, schema: other)])
            let name = try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".segment") }!
            let serial = UInt64(name.dropLast(".segment".count), radix: 16)!
            let foreign = segment.snapshot.parts[0].segment
            let forged = CollectionSegment(
                serial: serial, ids: foreign.ids, idTable: foreign.idTable, bodies: foreign.bodies, ranks: foreign.ranks, text: foreign.text, columns: foreign.columns)
            try forged.write(to: directory + "/" + name)
            #expect(throws: IndexFileError.self) { try CollectionIndex.restore(from: directory) }
        }
    }
}
