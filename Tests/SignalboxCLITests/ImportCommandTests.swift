import Foundation
import Testing

@testable import SignalboxCLI

@Suite struct ImportCommandTests {
    @Test func formatFromTheFileName() {
        #expect(ImportFormat(fileName: "a.ndjson") == .ndjson)
        #expect(ImportFormat(fileName: "a.JSONL.gz") == .ndjson)
        #expect(ImportFormat(fileName: "dir.csv/a.csv.gz") == .csv)
        #expect(ImportFormat(fileName: "a.txt") == nil)
        #expect(ImportFormat.isGzipped(fileName: "a.csv.GZ"))
        #expect(!ImportFormat.isGzipped(fileName: "a.csv"))
    }

    @Test func serverAddress() throws {
        let address = try ServerAddress(parsing: "http://127.0.0.1:9000/base/")
        #expect(address.host == "127.0.0.1" && address.port == 9000 && address.basePath == "/base")
        #expect(try ServerAddress(parsing: "http://example.org").port == 80)
        #expect(throws: ImportFailure.self) { try ServerAddress(parsing: "https://127.0.0.1:1") }
        #expect(throws: ImportFailure.self) { try ServerAddress(parsing: "127.0.0.1:8080") }
    }

    @Test func collectionNames() {
        #expect(ImportCommand.isCollectionName("products_2-a"))
        #expect(ImportCommand.isCollectionName(String(repeating: "a", count: 64)))
        #expect(!ImportCommand.isCollectionName(String(repeating: "a", count: 65)))
        #expect(!ImportCommand.isCollectionName("-a"))
        #expect(!ImportCommand.isCollectionName("Products"))
        #expect(!ImportCommand.isCollectionName(""))
    }

    @Test func usageErrors() {
        #expect(throws: (any Error).self) { try ImportCommand.parse(["a.ndjson"]) }  // no --collection
        #expect(throws: (any Error).self) { try ImportCommand.parse(["--collection", "p"]) }  // no file
        #expect(throws: (any Error).self) { try ImportCommand.parse(["/nonexistent.ndjson", "--collection", "p"]) }
    }

    @Test func importAnswerTakesStringAndIntegerIds() throws {
        let json = #"{"created":1,"updated":2,"failed":3,"errors":[{"line":4,"id":"x","status":422,"detail":"d"},{"line":5,"id":7,"status":422,"detail":"d"},{"line":6,"status":422,"detail":"d"}]}"#
        let answer = try JSONDecoder().decode(ImportAnswer.self, from: Data(json.utf8))
        #expect(answer.errors.map(\.id) == ["x", "7", nil])
        #expect(answer.created == 1 && answer.updated == 2 && answer.failed == 3)
    }

    @Test func problemDetail() {
        #expect(ProblemDetail.of(Array(#"{"title":"Not Found","detail":"No collection is named x."}"#.utf8)) == "No collection is named x.")
        #expect(ProblemDetail.of(Array("plain".utf8)) == "plain")
        #expect(ProblemDetail.of([]) == "(no body)")
    }
}
