import Testing

@testable import Search

@Suite struct CollectionSchemaJSONTests {
    static let issueExample = #"""
        {"id": "sku", "fields": [{"name": "title", "type": "string", "search": true}, {"name": "tags", "type": "string[]"},
         {"name": "price", "type": "number"}, {"name": "inStock", "type": "boolean"},
         {"name": "store", "type": "geo", "from": ["lat", "lon"]}], "rank": "price", "public": false}
        """#

    func decode(_ json: String, limits: SchemaLimits = .default) throws -> CollectionSchema {
        try CollectionSchema.decode(json: Array(json.utf8), limits: limits)
    }

    /// The error's description, or nil when `json` decodes.
    func error(_ json: String, limits: SchemaLimits = .default) -> String? {
        do {
            _ = try CollectionSchema.decode(json: Array(json.utf8), limits: limits)
            return nil
        } catch {
            return error.description
        }
    }

    /// A schema body with `fields` (JSON text of the array's items) and more top-level members.
    func body(_ fields: String, _ more: String = "") -> String {
        #"{"id": "sku", "fields": [\#(fields)]\#(more.isEmpty ? "" : ", " + more)}"#
    }

    @Test func decodesTheIssueExample() throws {
        let schema = try decode(Self.issueExample)
        #expect(schema == CollectionSchema(
            idField: "sku",
            fields: [
                FieldSchema(name: "title", type: .string, search: true),
                FieldSchema(name: "tags", type: .stringArray),
                FieldSchema(name: "price", type: .number),
                FieldSchema(name: "inStock", type: .boolean),
                FieldSchema(name: "store", type: .geo, from: GeoSource(latitude: "lat", longitude: "lon")),
            ],
            rank: "price", isPublic: false))
    }

    @Test func encodesTheSameShapeAndRoundTrips() throws {
        let schema = try decode(Self.issueExample)
        let json = String(decoding: schema.encodedJSON(), as: UTF8.self)
        #expect(json == #"{"id":"sku","fields":[{"name":"title","type":"string","search":true},{"name":"tags","type":"string[]"},{"name":"price","type":"number"},{"name":"inStock","type":"boolean"},{"name":"store","type":"geo","from":["lat","lon"]}],"rank":"price","public":false}"#)
        #expect(try decode(json) == schema)
        #expect(try decode(String(decoding: Products.schema.encodedJSON(), as: UTF8.self)) == Products.schema)
    }

    @Test func defaults() throws {
        let schema = try decode(#"{"fields": []}"#)
        #expect(schema == CollectionSchema(idField: "id", fields: [], rank: nil, isPublic: false))
        #expect(String(decoding: schema.encodedJSON(), as: UTF8.self) == #"{"id":"id","fields":[],"public":false}"#)
        #expect(try decode(#"{"fields": [], "rank": null, "public": true}"#).isPublic)
        #expect(try decode(#" {"fields":[{"name":"a","type":"string","search":false}]} "#).fields == [FieldSchema(name: "a", type: .string)])
        // The id field may be declared, as a string.
        #expect(try decode(body(#"{"name": "sku", "type": "string", "search": true}"#)).fields.count == 1)
        // A geo field's sources may be declared numbers.
        #expect(throws: Never.self) {
            try decode(body(#"{"name": "lat", "type": "number"}, {"name": "at", "type": "geo", "from": ["lat", "lon"]}"#))
        }
    }

    @Test func syntaxAndShapeErrors() {
        #expect(error("[]") == "the schema must be a JSON object, not an array")
        #expect(error(#""x""#) == "the schema must be a JSON object, not a string")
        #expect(error("{") == "not JSON: expected a string at byte 1")
        #expect(error(#"{"fields": []} x"#) == "not JSON: unexpected text after the JSON value at byte 15")
        #expect(error("") == "not JSON: unexpected end of data at byte 0")
        #expect(error(#"{"id": "sku"}"#) == "fields: is missing: declare the fields, even as []")
        #expect(error(#"{"fields": {}}"#) == "fields: must be an array of fields, not an object")
        #expect(error(#"{"fields": [], "id": 3}"#) == "id: must be a string, not a number")
        #expect(error(#"{"fields": [], "public": "no"}"#) == "public: must be true or false, not a string")
        #expect(error(#"{"fields": [], "rank": 1}"#) == "rank: must be a string, not a number")
        #expect(error(#"{"fields": [], "fields": []}"#) == "fields: is given twice")
        #expect(error(#"{"fields": [], "ranking": "x"}"#) == "unknown key 'ranking' (expected id, fields, rank, public)")
        #expect(error(body("3")) == #"fields[0]: a field must be an object like {"name": "title", "type": "string"}, not a number"#)
        #expect(error(body(#"{"type": "string"}"#)) == "fields[0].name: is missing")
        #expect(error(body(#"{"name": "a"}"#)) == "fields[0].type: is missing")
        #expect(error(body(#"{"name": "a", "type": "string", "serach": true}"#)) == "fields[0]: unknown key 'serach' (expected name, type, search, from)")
        #expect(error(body(#"{"name": "a", "type": "string", "search": 1}"#)) == "fields[0].search: must be true or false, not a number")
        #expect(error(body(#"{"name": "a", "type": "string", "name": "b"}"#)) == "fields[0].name: is given twice")
    }

    @Test func fieldErrorsNameTheField() {
        #expect(error(body(#"{"name": "a", "type": "string"}, {"name": "b", "type": "strng"}"#))
            == "fields[1].type: unknown type 'strng' (expected string, string[], number, boolean or geo)")
        #expect(error(body(#"{"name": "a", "type": "number", "search": true}"#))
            == "fields[0].search: only string and string[] fields can be searched, and 'a' is number")
        #expect(error(body(#"{"name": "a", "type": "string"}, {"name": "a", "type": "number"}"#))
            == "fields[1].name: 'a' is declared twice (also fields[0])")
        #expect(error(body(#"{"name": "sku", "type": "number"}"#))
            == "fields[0].type: 'sku' is the id field, which holds a string: declare it as string, not number")
        #expect(error(body(#"{"name": "a", "type": "number", "from": ["x", "y"]}"#))
            == "fields[0].from: only a geo field is built from other fields, and 'a' is number")
        #expect(error(body(#"{"name": "g", "type": "geo", "from": ["x"]}"#))
            == #"fields[0].from: must be two field names, latitude first, like ["lat", "lon"]"#)
        #expect(error(body(#"{"name": "g", "type": "geo", "from": ["x", "y", "z"]}"#))
            == #"fields[0].from: must be two field names, latitude first, like ["lat", "lon"]"#)
        #expect(error(body(#"{"name": "g", "type": "geo", "from": ["x", 2]}"#)) == "fields[0].from[1]: must be a string, not a number")
        #expect(error(body(#"{"name": "g", "type": "geo", "from": ["x", "x"]}"#)) == "fields[0].from: the latitude and the longitude are both 'x'")
        #expect(error(body(#"{"name": "g", "type": "geo", "from": ["g", "y"]}"#)) == "fields[0].from[0]: 'g' cannot be a coordinate of the geo field 'g'")
        #expect(error(body(#"{"name": "g", "type": "geo", "from": ["x", "_y"]}"#))
            == "fields[0].from[1]: the field name '_y' starts with '_', which is kept for the engine's own names")
        #expect(error(body(#"{"name": "x", "type": "string"}, {"name": "g", "type": "geo", "from": ["x", "y"]}"#))
            == "fields[1].from[0]: 'x' is declared as string; a coordinate is a number")
    }

    @Test func fieldNameRule() {
        #expect(error(body(#"{"name": "_score", "type": "number"}"#))
            == "fields[0].name: the field name '_score' starts with '_', which is kept for the engine's own names")
        #expect(error(body(#"{"name": "", "type": "number"}"#)) == "fields[0].name: a field name is empty")
        #expect(error(body(#"{"name": "1st", "type": "number"}"#))
            == "fields[0].name: the field name '1st' is not 1 to 64 characters A-Z, a-z, 0-9, '_', '.' or '-' starting with a letter")
        #expect(error(body(#"{"name": "a b", "type": "number"}"#))
            == "fields[0].name: the field name 'a b' is not 1 to 64 characters A-Z, a-z, 0-9, '_', '.' or '-' starting with a letter")
        #expect(error(#"{"id": "my id", "fields": []}"#)
            == "id: the field name 'my id' is not 1 to 64 characters A-Z, a-z, 0-9, '_', '.' or '-' starting with a letter")
        #expect(CollectionSchema.isValidFieldName("a"))
        #expect(CollectionSchema.isValidFieldName("Address.city-name_2"))
        #expect(CollectionSchema.isValidFieldName("a" + String(repeating: "b", count: 63)))
        #expect(!CollectionSchema.isValidFieldName("a" + String(repeating: "b", count: 64)))
        #expect(!CollectionSchema.isValidFieldName("é"))
        #expect(!CollectionSchema.isValidFieldName("a:b"))
    }

    @Test func rankErrors() {
        #expect(error(body(#"{"name": "a", "type": "number"}"#, #""rank": "b""#)) == "rank: 'b' is not a declared field")
        #expect(error(body(#"{"name": "a", "type": "string"}"#, #""rank": "a""#)) == "rank: the rank must be a number field, and 'a' is string")
    }

    @Test func limits() {
        var limits = SchemaLimits()
        limits.maxFields = 2
        let three = body(#"{"name": "a", "type": "number"}, {"name": "b", "type": "number"}, {"name": "c", "type": "number"}"#)
        #expect(error(three, limits: limits) == "fields: 3 fields are declared; the limit is 2")
        #expect(error(three) == nil)
        limits.maxBodyBytes = 10
        #expect(error(#"{"fields": []}"#, limits: limits) == "the schema is 14 bytes long; the limit is 10")
        #expect(throws: SchemaError("fields", "65 fields are declared; the limit is 64")) {
            try CollectionSchema(fields: (0..<65).map { FieldSchema(name: "f\($0)", type: .number) }).validate()
        }
    }

    @Test func collectionNameRule() {
        for name in ["products", "a", "0", "my-shop_2", String(repeating: "a", count: 64)] {
            #expect(CollectionSchema.isValidCollectionName(name), "\(name)")
        }
        for name in ["", "Products", "-a", "_a", "a b", "a.b", "é", "a/b", String(repeating: "a", count: 65)] {
            #expect(!CollectionSchema.isValidCollectionName(name), "\(name)")
        }
        #expect(throws: SchemaError("", "the collection name 'My Shop' is not 1 to 64 characters a-z, 0-9, '_' or '-' starting with a letter or a digit")) {
            try CollectionSchema.checkCollectionName("My Shop")
        }
        #expect(throws: Never.self) { try CollectionSchema.checkCollectionName("shop") }
    }

    @Test func encodingEscapesStrings() throws {
        // Names cannot hold characters to escape, but the encoder escapes anything it is given.
        var output: [UInt8] = []
        JSONOutput.appendString("a\"b\\c\n\u{1}é", to: &output)
        #expect(String(decoding: output, as: UTF8.self) == #""a\"b\\c\n\u0001é""#)
    }
}
