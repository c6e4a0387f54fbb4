import Foundation
import Testing

@testable import Search

@Suite struct CSVDocumentBuilderTests {
    let header = ["sku", "title", "tags", "price", "inStock", "lat", "lon", "note"]

    func builder(_ header: [String]? = nil, schema: CollectionSchema = Products.schema) throws -> CSVDocumentBuilder {
        try CSVDocumentBuilder(header: header ?? self.header, schema: schema)
    }

    func document(_ cells: [String], line: Int = 2, header: [String]? = nil, schema: CollectionSchema = Products.schema) throws -> String {
        String(decoding: try builder(header, schema: schema).document(from: CSVRecord(line: line, cells: cells)), as: UTF8.self)
    }

    /// The error's description, or nil when the record converts.
    func error(_ cells: [String], header: [String]? = nil, schema: CollectionSchema = Products.schema) -> String? {
        do {
            _ = try CSVDocumentBuilder(header: header ?? self.header, schema: schema).document(from: CSVRecord(line: 7, cells: cells))
            return nil
        } catch {
            return error.description
        }
    }

    func headerError(_ header: [String], schema: CollectionSchema = Products.schema) -> String? {
        do {
            _ = try CSVDocumentBuilder(header: header, line: 1, schema: schema)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func cellsConvertedByTheSchema() throws {
        let json = try document(["007", "Phone \"X\"", "red| blue ||", "12.50", "TRUE", "48.85", "2.35", "café\n"])
        #expect(json == #"{"sku":"007","title":"Phone \"X\"","tags":["red","blue"],"price":12.50,"inStock":true,"lat":48.85,"lon":2.35,"note":"café\n"}"#)
        // Well-formed JSON, with the values a JSON reader sees.
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(object?["price"] as? Double == 12.5)
        #expect(object?["sku"] as? String == "007")
    }

    @Test func emptyCellsAreMissingMembers() throws {
        #expect(try document(["1", "", "", "", "", "", "", ""]) == #"{"sku":"1"}"#)
        #expect(try document(["", "t", "", "", "", "", "", ""]) == #"{"title":"t"}"#)
    }

    @Test func numbersAndBooleans() throws {
        let cells = { (price: String, inStock: String) in ["1", "", "", price, inStock, "", "", ""] }
        #expect(try document(cells(" 42 ", "1")) == #"{"sku":"1","price":42,"inStock":true}"#)
        #expect(try document(cells("-0.5e3", "0")) == #"{"sku":"1","price":-0.5e3,"inStock":false}"#)
        #expect(try document(cells(".5", "false")) == #"{"sku":"1","price":0.5,"inStock":false}"#)
        #expect(try document(cells("007", "False")) == #"{"sku":"1","price":7.0,"inStock":false}"#)
        #expect(try document(cells("+3", "true")) == #"{"sku":"1","price":3.0,"inStock":true}"#)
        #expect(try document(cells("5.", "true")) == #"{"sku":"1","price":5.0,"inStock":true}"#)
        #expect(try document(cells("1E+2", "true")) == #"{"sku":"1","price":1E+2,"inStock":true}"#)
    }

    @Test func aGeoFieldWithoutFromReadsLatCommaLng() throws {
        let schema = CollectionSchema(idField: "id", fields: [FieldSchema(name: "at", type: .geo)])
        #expect(try document(["1", "48.85, 2.35"], header: ["id", "at"], schema: schema) == #"{"id":"1","at":{"lat":48.85,"lng":2.35}}"#)
        #expect(error(["1", "91,0"], header: ["id", "at"], schema: schema)
            == "line 7: column 'at': '91,0' is not a point lat,lng (latitude within ±90, longitude within ±180)")
        #expect(error(["1", "1;2"], header: ["id", "at"], schema: schema)
            == "line 7: column 'at': '1;2' is not a point lat,lng (latitude within ±90, longitude within ±180)")
    }

    @Test func cellErrorsNameTheLineAndColumn() {
        let cells = { (price: String, inStock: String, lat: String) in ["1", "", "", price, inStock, lat, "", ""] }
        #expect(error(cells("cheap", "", "")) == "line 7: column 'price': 'cheap' is not a number")
        #expect(error(cells("1e999", "", "")) == "line 7: column 'price': '1e999' is not a number")
        #expect(error(cells("nan", "", "")) == "line 7: column 'price': 'nan' is not a number")
        #expect(error(cells("0x10", "", "")) == "line 7: column 'price': '0x10' is not a number")
        #expect(error(cells("", "yes", "")) == "line 7: column 'inStock': 'yes' is not a boolean (true, false, 1 or 0)")
        #expect(error(cells("", "", "north")) == "line 7: column 'lat': 'north' is not a number")
        #expect(error(cells(String(repeating: "9", count: 70), "", "")) == "line 7: column 'price': '\(String(repeating: "9", count: 40))…' is not a number")
        #expect(error(["1", "2"]) == "line 7: the record has 2 cells; the header has 8")
    }

    @Test func cellsThatAreNotUTF8AreErrors() throws {
        let builder = try builder(["sku", "title"])
        let record = CSVRecord(line: 4, cells: ["1", "x"])
        var reader = CSVRecordReader()
        let records = reader.feed(Array("1,".utf8) + [0xE9, 0x0A])  // Latin-1 é + reader.finish()
        guard case .success(let latin1) = records.first else {
            Issue.record("no record")
            return
        }
        #expect(throws: ImportLineError(line: 1, "column 'title': the cell is not UTF-8 text")) { try builder.document(from: latin1) }
        #expect(throws: Never.self) { try builder.document(from: record) }
    }

    @Test func headerErrors() {
        #expect(headerError(["title", "price"]) == "line 1: the header has no 'sku' column, the collection's id field")
        #expect(headerError(["sku", "a", "a"]) == "line 1: the header names 'a' twice (columns 2 and 3)")
        #expect(headerError(["sku", ""]) == "line 1: column 2 of the header has no name")
        #expect(headerError(["sku", "store"]) == "line 1: 'store' is a geo field built from 'lat' and 'lon': give those columns instead")
        #expect(headerError(["\u{FEFF}sku", "title"]) == nil)
    }

    @Test func byteOrderMarkDroppedFromTheHeader() throws {
        #expect(try builder(["\u{FEFF}sku", "title"]).columnNames == ["sku", "title"])
    }

    @Test func undeclaredColumnsAndKeysAreEscaped() throws {
        let json = try document(["1", "x\u{1}\"\\"], header: ["sku", "we\"ird\nkey"])
        #expect(json == #"{"sku":"1","we\"ird\nkey":"x\u0001\"\\"}"#)
        #expect(try JSONSerialization.jsonObject(with: Data(json.utf8)) is [String: Any])
    }

    @Test func readerAndBuilderTogether() throws {
        let csv = "sku,title,price\r\n1,\"Big, \"\"red\"\" box\",9.99\r\n2,\"two\nlines\",\r\n3,bad,x\r\n"
        var reader = CSVRecordReader()
        let records = reader.feed(Array(csv.utf8)) + reader.finish()
        let header = try #require(try records.first?.get())
        let builder = try CSVDocumentBuilder(header: header, schema: Products.schema)
        var documents: [String] = []
        var errors: [String] = []
        for result in records.dropFirst() {
            do {
                documents.append(String(decoding: try builder.document(from: try result.get()), as: UTF8.self))
            } catch {
                errors.append("\(error)")
            }
        }
        #expect(documents == [#"{"sku":"1","title":"Big, \"red\" box","price":9.99}"#, #"{"sku":"2","title":"two\nlines"}"#])
        #expect(errors == ["line 5: column 'price': 'x' is not a number"])
    }

    @Test func jsonNumberSyntax() {
        for text in ["0", "-0", "12", "1.5", "-1.5e-3", "1E+2"] {
            #expect(CSVDocumentBuilder.isJSONNumber(Array(text.utf8)), "\(text)")
        }
        for text in ["+1", ".5", "5.", "01", "-.5", "5.e3"] {
            #expect(!CSVDocumentBuilder.isJSONNumber(Array(text.utf8)), "\(text)")
        }
    }
}

@Suite struct CSVDocumentReaderTests {
    typealias Output = Result<CSVDocument, ImportLineError>

    func read(_ text: String, cuts: [Int]) throws -> [Output] {
        var reader = CSVDocumentReader(schema: Products.schema)
        var outputs: [Output] = []
        let input = Array(text.utf8)
        var start = 0
        for cut in cuts + [input.count] {
            outputs += try reader.feed(input[start..<cut])
            start = cut
        }
        return outputs + (try reader.finish())
    }

    @Test func documentsWithTheirLinesInAnyChunking() throws {
        let csv = "\u{FEFF}sku,price,title\r\n1,2.5,\"a\nb\"\r\n2,x,\r\n\r\n3,,c"
        let expected: [Output] = [
            .success(CSVDocument(line: 2, json: Array(#"{"sku":"1","price":2.5,"title":"a\nb"}"#.utf8))),
            .failure(ImportLineError(line: 4, "column 'price': 'x' is not a number")),
            .success(CSVDocument(line: 6, json: Array(#"{"sku":"3","title":"c"}"#.utf8))),
        ]
        for cuts in ChunkFeeding.cutSets(Array(csv.utf8).count) {
            #expect(try read(csv, cuts: cuts) == expected, "cut at \(cuts)")
        }
    }

    @Test func aHeaderThatCannotBeUsedIsThrown() {
        #expect(throws: ImportLineError(line: 1, "the header has no 'sku' column, the collection's id field")) {
            try read("title,price\nx,1\n", cuts: [])
        }
        #expect(throws: ImportLineError(line: 1, "a quoted cell is not closed before the end of the input")) {
            try read("\"sku", cuts: [])
        }
        #expect(throws: Never.self) { try read("", cuts: []) }
    }
}
