import Testing

@testable import Search

@Suite struct CSVRecordReaderTests {
    typealias Output = Result<CSVRecord, ImportLineError>

    func read(
        _ input: [UInt8], cuts: [Int] = [], maxRecordBytes: Int = CSVRecordReader.defaultMaxRecordBytes,
        maxCells: Int = CSVRecordReader.defaultMaxCells
    ) -> [Output] {
        var reader = CSVRecordReader(maxRecordBytes: maxRecordBytes, maxCells: maxCells)
        return ChunkFeeding.outputs(input, cuts: cuts, feed: { reader.feed($0) }, finish: { reader.finish() })
    }

    func read(_ text: String, maxRecordBytes: Int = CSVRecordReader.defaultMaxRecordBytes, maxCells: Int = CSVRecordReader.defaultMaxCells) -> [Output] {
        read(Array(text.utf8), maxRecordBytes: maxRecordBytes, maxCells: maxCells)
    }

    func record(_ line: Int, _ cells: String...) -> Output { .success(CSVRecord(line: line, cells: cells)) }
    func failure(_ line: Int, _ message: String) -> Output { .failure(ImportLineError(line: line, message)) }

    @Test func plainRecords() {
        #expect(read("a,b,c\n1,2,3\n") == [record(1, "a", "b", "c"), record(2, "1", "2", "3")])
        #expect(read("a,b\n1,2") == [record(1, "a", "b"), record(2, "1", "2")])
        #expect(read("a,,\n,x,\n") == [record(1, "a", "", ""), record(2, "", "x", "")])
        #expect(read("one\n") == [record(1, "one")])
        #expect(read("") == [])
        #expect(read(" a , b ") == [record(1, " a ", " b ")])
    }

    @Test func quotedCells() {
        #expect(read("\"a,b\",\"say \"\"hi\"\"\",\"\"\n") == [record(1, "a,b", "say \"hi\"", "")])
        #expect(read("\"line\nbreak\",x\nnext,y\n") == [record(1, "line\nbreak", "x"), record(3, "next", "y")])
        #expect(read("\"crlf\r\ninside\",x\r\n") == [record(1, "crlf\r\ninside", "x")])
        #expect(read("\"\"\"\"") == [record(1, "\"")])
        // A quote inside an unquoted cell is kept as it is.
        #expect(read("5'10\",x\n") == [record(1, "5'10\"", "x")])
    }

    @Test func lineEndsAndLineNumbers() {
        #expect(read("a,b\r\n1,2\r\n") == [record(1, "a", "b"), record(2, "1", "2")])
        #expect(read("\n\r\na\n\n\nb\n\n") == [record(3, "a"), record(6, "b")])
        #expect(read("a\rb,c\n") == [record(1, "a\rb", "c")])
        #expect(read("\"a\"\r\n\"b\"\r") == [record(1, "a"), record(2, "b")])
        #expect(read("\"x\ny\nz\",1\n2,3\n") == [record(1, "x\ny\nz", "1"), record(4, "2", "3")])
    }

    @Test func errorsAreReportedForTheirRecordAndReadingGoesOn() {
        let afterQuote = "text after the closing quote of cell 1 (a quote inside a quoted cell is written \"\")"
        #expect(read("\"a\"b,c\nd,e\n") == [failure(1, afterQuote), record(2, "d", "e")])
        #expect(read("x,\"a\"\rb\ny\n") == [failure(1, "text after the closing quote of cell 2 (a quote inside a quoted cell is written \"\")"), record(2, "y")])
        #expect(read("a\n\"open,b\nc\n") == [record(1, "a"), failure(2, "a quoted cell is not closed before the end of the input")])
        #expect(read("abc,de\nabcdef\n\"abc\ndef\"\nx\n", maxRecordBytes: 5) == [
            record(1, "abc", "de"), failure(2, "the record is longer than 5 bytes"), failure(3, "the record is longer than 5 bytes"), record(5, "x"),
        ])
        #expect(read("a,b,c\na,b\n", maxCells: 2) == [failure(1, "the record has more than 2 cells"), record(2, "a", "b")])
    }

    @Test func chunkBoundariesChangeNothing() {
        let inputs = [
            "id,name\r\n1,\"a,\"\"b\"\"\r\nc\"\r\n\r\n2,x\"y\n",
            "\"a\"b,c\nabcdefgh\n\"q\"\r\n\"open\n",
            "x\ry,\"\"\n\n\r\n,\r",
        ]
        for text in inputs {
            let input = Array(text.utf8)
            let whole = read(input, maxRecordBytes: 7)
            for cuts in ChunkFeeding.cutSets(input.count) {
                #expect(read(input, cuts: cuts, maxRecordBytes: 7) == whole, "\(text.debugDescription) cut at \(cuts)")
            }
        }
    }

    @Test func otherSeparator() {
        var reader = CSVRecordReader(separator: UInt8(ascii: ";"))
        #expect(reader.feed(Array("a;\"b;c\";d,e\n".utf8)) == [record(1, "a", "b;c", "d,e")])
        #expect(reader.finish() == [])
    }

    @Test func recordCells() {
        let record = CSVRecord(line: 3, cells: ["a", "", "école"])
        #expect(record.count == 3)
        #expect(Array(record[0]) == Array("a".utf8))
        #expect(record[1].isEmpty)
        #expect(record.string(at: 2) == "école")
        #expect(record.strings == ["a", "", "école"])
    }
}
