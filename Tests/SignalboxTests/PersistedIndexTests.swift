import Foundation
import HTTP
import HTTPTesting
import HTTPTypes
import Logging
import Search
import SearchTesting
import Testing

@testable import Signalbox

/// The collections' persisted indexes (`PersistedIndexes`): a restart that loads them serves
/// exactly what a start that rebuilds every index from the store serves, after random writes,
/// deletes, imports, schema changes and a collection deleted and made again; an index saved
/// before more writes is caught up; a damaged one is rebuilt and saved anew. Each service is
/// started the way the binary starts it (`SignalboxService(settings:logger:)`), in process.
@Suite(.timeLimit(.minutes(3)))
struct PersistedIndexTests {
    static let key = "test-key"
    let directory: URL

    init() throws {
        directory = try Self.directoryWithOneCity("persisted")
    }

    /// A new temporary directory holding `cities.ndjson`, a one-city base data set: the cities are
    /// not what these tests test, and the embedded ones take a while.
    static func directoryWithOneCity(_ prefix: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(#"{"id": "2988507", "name": "Paris", "rank": 2100000}"#.utf8 + [10])
            .write(to: directory.appendingPathComponent("cities.ndjson"))
        return directory
    }

    /// A service on the test's store; `persist`: with the default index directory, else with none.
    func start(persist: Bool = true, _ configure: (inout Settings) -> Void = { _ in }) async throws -> SignalboxService {
        var settings = Settings()
        settings.storePath = directory.appendingPathComponent("store.sqlite").path
        settings.dataPath = directory.appendingPathComponent("cities.ndjson").path
        settings.apiKey = Self.key
        settings.indexSaveInterval = 0
        settings.shutdownNotReadyDelay = 0
        if !persist { settings.indexDirectory = "" }
        configure(&settings)
        return try await SignalboxService(settings: settings, logger: Logger(label: "test"))
    }

    var indexDirectory: String { directory.appendingPathComponent("store.sqlite.index").path }

    @discardableResult
    static func send(
        _ service: SignalboxService, _ method: HTTPRequest.Method, _ path: String, _ body: String? = nil, type: String = "application/json"
    ) async throws -> TestResponse {
        var fields: HTTPFields = [.authorization: "Bearer \(Self.key)"]
        if body != nil { fields[.contentType] = type }
        return try await service.router.testClient().execute(method, path, headerFields: fields, body: body.map { Array($0.utf8) } ?? [])
    }

    static let schema = """
        {"id": "sku", "fields": [
          {"name": "title", "type": "string", "search": true},
          {"name": "tags", "type": "string[]", "search": true},
          {"name": "brand", "type": "string"},
          {"name": "price", "type": "number"},
          {"name": "inStock", "type": "boolean"},
          {"name": "store", "type": "geo", "from": ["lat", "lon"]}],
         "rank": "price"}
        """
    /// The brand searched too, and no geo: a replaced schema.
    static let otherSchema = """
        {"id": "sku", "fields": [
          {"name": "title", "type": "string", "search": true},
          {"name": "brand", "type": "string", "search": true},
          {"name": "tags", "type": "string[]"},
          {"name": "price", "type": "number"},
          {"name": "inStock", "type": "boolean"}]}
        """

    /// Product `sku`'s JSON, drawn from `random` (shared with the index's own tests: `RandomProducts`).
    static func document(_ sku: Int, _ random: inout RandomProducts) -> String {
        random.product(sku: sku)
    }

    static func products(seed: UInt64) -> RandomProducts {
        RandomProducts(seed: seed, location: .latLon, descriptions: false)
    }

    /// Random writes to `shop`: PUTs, DELETEs, imports; with `schemaChanges`, now and then the
    /// schema replaced (its index built in the background: not saved if a shutdown comes first),
    /// or the collection deleted and made again.
    static func write(_ service: SignalboxService, rounds: Int, schemaChanges: Bool = true, _ random: inout RandomProducts) async throws {
        for _ in 0..<rounds {
            switch random.next() % 20 + (schemaChanges ? 0 : 2) {
            case 0:
                let schema = random.next() % 2 == 0 ? Self.schema : Self.otherSchema
                try #require(try await send(service, .put, "/collections/shop", schema).status.code < 300)
            case 1:
                try await send(service, .delete, "/collections/shop")
                try #require(try await send(service, .put, "/collections/shop", Self.schema).status == .created)
            case 2...5:
                let lines = (0..<Int(random.next() % 40) + 1).map { _ in document(Int(random.next() % 200), &random) }
                let answer = try await send(service, .post, "/collections/shop/documents", lines.joined(separator: "\n"), type: "application/x-ndjson")
                try #require(answer.status == .ok)
            case 6...8:
                try await send(service, .delete, "/collections/shop/documents/\(random.next() % 200)")
            default:
                let sku = Int(random.next() % 200)
                try await send(service, .put, "/collections/shop/documents/\(sku)", document(sku, &random))
            }
        }
    }

    static let queries = [
        "q=", "q=lamp", "q=cha", "q=tabel", "q=lampe+desk", "q=sofa+", "q=&filter=price+>+50", "q=lamp&filter=brand+%3D+acme",
        "q=&facets=brand,price,inStock,tags", "q=st&sort=price:desc&limit=20&offset=2", "q=&filter=inStock+%3D+true&facets=brand",
        "q=&sort=brand:asc&limit=50",
    ]

    /// What each query answers (the timing left out), or the status of a query the schema refuses.
    static func answers(_ service: SignalboxService) async throws -> [String] {
        var answers: [String] = []
        for query in queries {
            let response = try await send(service, .get, "/collections/shop/search?" + query)
            guard response.status == .ok, var json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
                answers.append("\(query): \(response.status.code)")
                continue
            }
            json["took_us"] = nil
            // A facet shows a value as first spelled in a segment: indexes cut into other segments
            // (loaded and caught up, or built whole) may spell it otherwise ("Acme", "acme").
            if let facets = json["facets"] as? [String: [[String: Any]]] {
                json["facets"] = facets.mapValues { counts in
                    counts.map { count in count.merging(["value": "\(count["value"] ?? "")".lowercased()]) { $1 } }
                        .sorted { "\($0["count"] ?? 0) \($0["value"] ?? "")" < "\($1["count"] ?? 0) \($1["value"] ?? "")" }
                }
            }
            answers.append("\(query): " + String(decoding: try JSONSerialization.data(withJSONObject: json, options: .sortedKeys), as: UTF8.self))
        }
        let listed = try await send(service, .get, "/collections/shop")
        answers.append("summary: \(listed.status.code) " + String(decoding: listed.body, as: UTF8.self))
        // The built-in cities' collection (its index is saved too, under the base data's digest).
        for query in ["q=", "q=ly", "q=&facets=countryCode"] {
            let response = try await send(service, .get, "/collections/cities/search?" + query)
            let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            answers.append("cities \(query): \(response.status.code) \(json?["total"] ?? "") \((json?["hits"] as? [[String: Any]])?.compactMap { $0["id"] } ?? [])")
        }
        return answers
    }

    /// Answers of a start that loads the persisted indexes, then of one that rebuilds them all;
    /// returns how many indexes the first loaded.
    @discardableResult
    func expectRestartAnswersAsAFreshBuild(loaded expectedLoaded: Int?, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
        let restarted = try await start()
        #expect(restarted.collectionIndexesLoaded == expectedLoaded ?? restarted.collectionIndexesLoaded, sourceLocation: sourceLocation)
        #expect(restarted.citiesIndexLoaded, sourceLocation: sourceLocation)
        let fresh = try await start(persist: false)
        #expect(fresh.collectionIndexesLoaded == 0, sourceLocation: sourceLocation)
        let (a, b) = (try await Self.answers(restarted), try await Self.answers(fresh))
        #expect(a == b, sourceLocation: sourceLocation)
        await restarted.shutdown()
        await fresh.shutdown()
        return restarted.collectionIndexesLoaded
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func aRestartServesWhatAFreshBuildServes(seed: UInt64) async throws {
        var random = Self.products(seed: seed)
        var service = try await start()
        try #require(try await Self.send(service, .put, "/collections/shop", Self.schema).status == .created)
        var loaded = 0
        for _ in 0..<4 {
            try await Self.write(service, rounds: 40, &random)
            await service.shutdown()
            // Not loaded when a schema's index was still being built at the shutdown: rebuilt then.
            loaded += try await expectRestartAnswersAsAFreshBuild(loaded: nil)
            service = try await start()
        }
        await service.shutdown()
        #expect(loaded > 0)
    }

    /// A collection's index is saved current at the replica's served head, not at its own last
    /// write, with a mark naming the change there (``IndexMark``): the replica remembers only its
    /// newest changes, and a quiet collection's last write may be long gone from them.
    @Test func anIndexIsSavedAtTheServedHeadWithItsMark() async throws {
        var random = Self.products(seed: 21)
        let service = try await start()
        try #require(try await Self.send(service, .put, "/collections/shop", Self.schema).status == .created)
        try await Self.send(service, .put, "/collections/shop/documents/1", Self.document(1, &random))
        for id in 100..<103 {
            try #require(try await Self.send(service, .put, "/documents/\(id)", #"{"id": "\#(id)", "name": "Lyon", "rank": 5}"#).status == .noContent)
        }
        let head = service.applier.applied.value
        await service.shutdown()
        let folder = indexDirectory + "/shop"
        #expect(try CollectionIndex.restore(from: folder).index.sequence == head)
        let mark = try JSONDecoder().decode(IndexMark.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/" + PersistedIndexes.markName)))
        #expect(mark.sequence == head && mark.changes.last?.sequence == head)
        #expect(mark.changes.map(\.sequence) == Array(1...head))
    }

    @Test func anIndexOlderThanTheStoreIsCaughtUp() async throws {
        var random = Self.products(seed: 5)
        let first = try await start()
        try #require(try await Self.send(first, .put, "/collections/shop", Self.schema).status == .created)
        try await Self.write(first, rounds: 30, schemaChanges: false, &random)
        try #require(try await Self.send(first, .put, "/documents/100", #"{"id": "100", "name": "Lyon", "rank": 500000}"#).status == .noContent)
        await first.shutdown()
        // More writes, then no shutdown: as after a crash, the saved indexes are older than the store.
        let second = try await start()
        #expect(second.collectionIndexesLoaded == 1)
        #expect(second.citiesIndexLoaded)
        for sku in 0..<50 { try await Self.send(second, .put, "/collections/shop/documents/\(sku)", Self.document(sku, &random)) }
        try await Self.send(second, .delete, "/collections/shop/documents/7")
        try #require(try await Self.send(second, .put, "/documents/101", #"{"id": "101", "name": "Lyons", "rank": 400000}"#).status == .noContent)
        try #require(try await Self.send(second, .delete, "/documents/2988507").status == .noContent)
        second.persistedIndexes?.release()
        try await expectRestartAnswersAsAFreshBuild(loaded: 1)
    }

    /// A start loads and builds its indexes on threads of its own, not on the pool Swift's tasks
    /// run on (issue 25: `concurrentPerform` there held the pool's two threads for seconds).
    @Test func aStartLoadsAndBuildsItsIndexesOffThePool() async throws {
        let first = try await start()
        try #require(try await Self.send(first, .put, "/collections/shop", Self.schema).status == .created)
        var random = Self.products(seed: 9)
        try await Self.write(first, rounds: 10, schemaChanges: false, &random)
        #expect(first.indexesBuiltOnStartThread)
        await first.shutdown()
        let second = try await start()
        #expect(second.collectionIndexesLoaded == 1)
        #expect(second.indexesBuiltOnStartThread)
        #expect(second.indexesLoadedOnStartThread)
        await second.shutdown()
    }

    @Test(arguments: ["truncated", "flipped", "missing segment", "missing manifest"])
    func aDamagedIndexIsRebuiltAndSavedAnew(damage: String) async throws {
        var random = Self.products(seed: 9)
        let first = try await start()
        try #require(try await Self.send(first, .put, "/collections/shop", Self.schema).status == .created)
        try await Self.write(first, rounds: 30, schemaChanges: false, &random)
        await first.shutdown()
        let folder = indexDirectory + "/shop"
        let segment = folder + "/" + (try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".segment") }!)
        switch damage {
        case "truncated":
            let size = try FileManager.default.attributesOfItem(atPath: segment)[.size] as! Int
            truncate(segment, off_t(size - 3))
        case "flipped":
            var bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
            bytes[bytes.count / 3] ^= 1
            try bytes.write(to: URL(fileURLWithPath: segment))
        case "missing segment": try FileManager.default.removeItem(atPath: segment)
        default: try FileManager.default.removeItem(atPath: folder + "/manifest")
        }
        #expect(throws: IndexFileError.self) { try CollectionIndex.restore(from: folder) }
        let second = try await start()
        #expect(second.collectionIndexesLoaded == 0)
        await second.persistedIndexes?.waitForSaves()
        // Saved anew at start: the next start loads it.
        #expect(throws: Never.self) { try CollectionIndex.restore(from: folder) }
        second.persistedIndexes?.release()
        try await expectRestartAnswersAsAFreshBuild(loaded: 1)
    }

    @Test func anIndexOfAnotherStoreIsNotUsed() async throws {
        var random = Self.products(seed: 3)
        let first = try await start()
        try #require(try await Self.send(first, .put, "/collections/shop", Self.schema).status == .created)
        try await Self.write(first, rounds: 20, schemaChanges: false, &random)
        await first.shutdown()
        // The store made anew (another epoch), the same writes: the saved index must not be taken.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory.appendingPathComponent("store.sqlite" + suffix).path) }
        let second = try await start()
        #expect(second.collectionIndexesLoaded == 0)
        #expect(try await Self.send(second, .get, "/collections/shop").status == .notFound)
        await second.shutdown()
        #expect(!FileManager.default.fileExists(atPath: indexDirectory + "/shop"))
    }

    @Test func anEmptyIndexDirectoryTurnsPersistenceOff() async throws {
        let settings = try await SettingsLoader.load(configFile: nil, environment: ["SIGNALBOX_INDEX_DIRECTORY": ""])
        #expect(settings.indexDirectory == "")
        #expect(PersistedIndexes.directory(for: settings) == nil)
        #expect(PersistedIndexes.directory(for: Settings()) == "signalbox.sqlite.index")
        var postgres = Settings()
        postgres.storePath = "postgres://u@localhost:5432/db"
        postgres.port = 8081
        #expect(PersistedIndexes.directory(for: postgres) == "signalbox-index-8081")
        postgres.port = 0
        #expect(PersistedIndexes.directory(for: postgres) == nil)
    }

    @Test func aCitiesIndexOfOtherBaseDataIsNotUsed() async throws {
        let first = try await start()
        await first.shutdown()
        let second = try await start()
        #expect(second.citiesIndexLoaded)
        await second.shutdown()
        // Another data set under the same store: the saved cities index must not be taken.
        try Data(#"{"id": "1", "name": "Lisbon", "rank": 500000}"#.utf8 + [10]).write(to: directory.appendingPathComponent("other.ndjson"))
        let other = try await start { $0.dataPath = directory.appendingPathComponent("other.ndjson").path }
        #expect(other.persistedIndexes != nil)
        #expect(!other.citiesIndexLoaded)
        let found = try await Self.send(other, .get, "/collections/cities/search?q=lis")
        #expect(String(decoding: found.body, as: UTF8.self).contains("Lisbon"))
        await other.shutdown()
    }

    @Test func oneDirectoryServesOneProcessAtATime() async throws {
        let first = try await start()
        #expect(first.persistedIndexes != nil)
        let second = try await start()
        #expect(second.persistedIndexes == nil)
        await first.shutdown()
        await second.shutdown()
    }
}
