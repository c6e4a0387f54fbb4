import Testing

@testable import Search

@Suite struct NDJSONLineReaderTests {
    typealias Output = Result<NDJSONLine, ImportLineError>

    func read(_ input: [UInt8], cuts: [Int] = [], maxLineBytes: Int = NDJSONLineReader.defaultMaxLineBytes) -> [Output] {
        var reader = NDJSONLineReader(maxLineBytes: maxLineBytes)
        return ChunkFeeding.outputs(input, cuts: cuts, feed: { reader.feed($0) }, finish: { reader.finish() })
    }

    func read(_ text: String, maxLineBytes: Int = NDJSONLineReader.defaultMaxLineBytes) -> [Output] {
        read(Array(text.utf8), maxLineBytes: maxLineBytes)
    }

    func line(_ number: Int, _ text: String) -> Output { .success(NDJSONLine(number: number, bytes: Array(text.utf8))) }

    @Test func linesWithTheirNumbers() {
        #expect(read("{\"a\":1}\n{\"b\":2}\n") == [line(1, "{\"a\":1}"), line(2, "{\"b\":2}")])
        #expect(read("{\"a\":1}\n{\"b\":2}") == [line(1, "{\"a\":1}"), line(2, "{\"b\":2}")])
        #expect(read("") == [])
        #expect(read("\n") == [])
    }

    @Test func blankLinesAreSkippedButCounted() {
        #expect(read("\n\na\n \t\r\n\nb\n\n") == [line(3, "a"), line(6, "b")])
    }

    @Test func crlfAccepted() {
        #expect(read("a\r\nb\r\n") == [line(1, "a"), line(2, "b")])
        #expect(read("a\r\nb\r") == [line(1, "a"), line(2, "b")])
        // A CR elsewhere is the line's.
        #expect(read("a\rb\n") == [line(1, "a\rb")])
    }

    @Test func byteOrderMarkDroppedFromTheFirstLineOnly() {
        #expect(read("\u{FEFF}{}\n\u{FEFF}x\n") == [line(1, "{}"), line(2, "\u{FEFF}x")])
        #expect(read("\u{FEFF}\nb") == [line(2, "b")])
    }

    @Test func overLongLineIsAnErrorAndTheRestGoesOn() {
        let error = Output.failure(ImportLineError(line: 2, "the line is longer than 4 bytes"))
        #expect(read("abcd\nabcde\nxy\n", maxLineBytes: 4) == [line(1, "abcd"), error, line(3, "xy")])
        #expect(read("abcd\r\nabcde\r\nxy", maxLineBytes: 4) == [line(1, "abcd"), error, line(3, "xy")])
        #expect(read("a\n" + String(repeating: "x", count: 100) + "\nb", maxLineBytes: 4) == [line(1, "a"), error, line(3, "b")])
        #expect(read("a\nabcdefgh", maxLineBytes: 4) == [line(1, "a"), error])
        #expect(ImportLineError(line: 2, "the line is longer than 4 bytes").description == "line 2: the line is longer than 4 bytes")
    }

    @Test func chunkBoundariesChangeNothing() {
        let inputs = [
            "{\"a\":1}\r\n\n{\"b\":\"x\\ny\"}\n  \nlast",
            "\u{FEFF}abc\r\nabcdefghij\r\nde\r\n\r\n",
            "\n\r\nx\ry\n",
            // Found by the fuzzer: a first line at the limit with a byte order mark and a CRLF.
            "\u{FEFF}abcdef\r\nabcdefg\r\n",
        ]
        for text in inputs {
            let input = Array(text.utf8)
            let whole = read(input, maxLineBytes: 6)
            for cuts in ChunkFeeding.cutSets(input.count) {
                #expect(read(input, cuts: cuts, maxLineBytes: 6) == whole, "\(text.debugDescription) cut at \(cuts)")
            }
        }
    }

    @Test func acceptsAnyCollectionOfBytes() {
        var reader = NDJSONLineReader()
        #expect(reader.feed("ab\ncd".utf8) == [line(1, "ab")])
        #expect(reader.feed(Array("e\n".utf8).lazy.map { $0 }) == [line(2, "cde")])
        #expect(reader.finish() == [])
    }
}
