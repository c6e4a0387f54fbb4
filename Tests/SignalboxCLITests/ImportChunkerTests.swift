import Testing

@testable import SignalboxCLI

@Suite struct ImportChunkerTests {
    /// The bodies a chunker makes of `text` fed in pieces of `piece` bytes, with their line offsets.
    func chunks(_ format: ImportFormat, _ text: String, limit: Int, piece: Int = 3) throws(ImportFailure) -> [Chunk] {
        var chunker = ImportChunker(format: format, limit: limit)
        let bytes = Array(text.utf8)
        var made: [Chunk] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + piece, bytes.count)
            made += try chunker.append(Array(bytes[start..<end])).map(Chunk.init)
            start = end
        }
        if let last = chunker.finish() { made.append(Chunk(last)) }
        return made
    }

    struct Chunk: Equatable, CustomStringConvertible {
        var body: String
        var lineOffset: Int
        init(_ body: String, _ lineOffset: Int) { (self.body, self.lineOffset) = (body, lineOffset) }
        init(_ chunk: ImportChunk) { self.init(String(decoding: chunk.body, as: UTF8.self), chunk.lineOffset) }
        var description: String { "(\(body.debugDescription), \(lineOffset))" }
    }

    @Test func smallFileIsOneBody() throws {
        #expect(try chunks(.ndjson, "{}\n{}\n", limit: 100) == [Chunk("{}\n{}\n", 0)])
        #expect(try chunks(.ndjson, "", limit: 100) == [])
        #expect(try chunks(.ndjson, "\n \n", limit: 100) == [], "only blank lines: nothing to send")
    }

    @Test(arguments: [1, 2, 3, 7, 64])
    func ndjsonIsCutAtLineEndsWithItsLineOffsets(piece: Int) throws {
        // Blank lines count: the server numbers lines as the file does.
        let made = try chunks(.ndjson, "a1\na2\n\na4\na5", limit: 7, piece: piece)
        #expect(made == [Chunk("a1\na2\n\n", 0), Chunk("a4\na5", 3)])
    }

    @Test(arguments: [1, 3, 64])
    func csvRepeatsItsHeaderAndCutsOutsideQuotes(piece: Int) throws {
        // The quoted cell spans lines 2-3, so "3,y" is the file's line 4: the server's 2 plus 2.
        let made = try chunks(.csv, "h,x\n1,\"q\nq\"\n3,y\n4,z\n", limit: 12, piece: piece)
        #expect(made == [Chunk("h,x\n1,\"q\nq\"\n", 0), Chunk("h,x\n3,y\n4,z\n", 2)])
    }

    @Test func everyBodyStaysWithinTheLimit() throws {
        let lines = (1...500).map { "{\"id\":\($0)}\n" }.joined()
        let made = try chunks(.ndjson, lines, limit: 100, piece: 37)
        #expect(made.allSatisfy { $0.body.utf8.count <= 100 })
        #expect(made.map(\.body).joined() == lines, "nothing lost or repeated")
        let csv = "id,name\n" + (1...500).map { "\($0),\"n, \($0)\"\n" }.joined()
        let csvMade = try chunks(.csv, csv, limit: 100, piece: 41)
        #expect(csvMade.allSatisfy { $0.body.utf8.count <= 100 && $0.body.hasPrefix("id,name\n") })
        #expect(csvMade.map { String($0.body.dropFirst("id,name\n".count)) }.joined() == String(csv.dropFirst(8)))
        // Each body's first record, mapped back by the offset, is that record's line in the file.
        for chunk in csvMade.dropFirst() {
            let firstRecord = chunk.body.split(separator: "\n")[1]
            let id = Int(firstRecord.split(separator: ",")[0])!
            #expect(2 + chunk.lineOffset == id + 1)
        }
    }

    @Test func aRecordLongerThanARequestIsAnError() {
        #expect(throws: ImportFailure.self) { try chunks(.ndjson, "ok\naaaaaaaaaa\n", limit: 5) }
        #expect(throws: ImportFailure.self) { try chunks(.csv, "hhhhhhhhh\n1\n", limit: 5) }
        #expect(throws: ImportFailure.self, "an open quote never ends a record") {
            try chunks(.csv, "h\n\"a\nb\nc\nd\n", limit: 6)
        }
    }
}
