import Foundation
import Testing

@testable import Search

@Suite struct CollectionDocumentTests {
    private let schema = CollectionFixtures.products

    private func decode(_ json: String, schema: CollectionSchema? = nil, limits: CollectionDocumentLimits = .default) throws(DocumentError) -> CollectionDocument {
        try CollectionDocument.decode(json: Array(json.utf8), schema: schema ?? self.schema, limits: limits)
    }

    private func error(_ json: String, schema: CollectionSchema? = nil, limits: CollectionDocumentLimits = .default) -> DocumentError? {
        do throws(DocumentError) {
            _ = try decode(json, schema: schema, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func decodesDeclaredValuesAndKeepsTheBody() throws {
        let json = #"  {"sku": "a-1", "title": "Red Shoe", "tags": ["shoe", "red"], "price": 12.5, "inStock": true, "#
            + #""store": {"lat": 48.85, "lng": 2.35}, "extra": {"nested": [1, {"x": null}]}, "brand": null}"# + "\n"
        let document = try decode(json)
        #expect(document.id == "a-1")
        #expect(document.values == [
            .string("Red Shoe"), .strings(["shoe", "red"]), nil, nil, .number(12.5), .boolean(true),
            .geo(GeoPoint(latitude: 48.85, longitude: 2.35)),
        ])
        // The body is the bytes as given, trimmed: undeclared fields included.
        #expect(String(decoding: document.body, as: UTF8.self) == json.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(document.value(of: "price", in: schema) == .number(12.5))
    }

    @Test func anIntegerIdStaysAsGiven() throws {
        let document = try decode(#"{"sku": -120, "title": "x"}"#)
        #expect(document.id == "-120")
        #expect(String(decoding: document.body, as: UTF8.self) == #"{"sku": -120, "title": "x"}"#)
        // The id field may also be a declared string field: it gets the id's text.
        let schema = CollectionSchema(fields: [FieldSchema(name: "id", type: .string, search: true)])
        #expect(try decode(#"{"id": 42}"#, schema: schema).values == [.string("42")])
    }

    /// Plain integers are read digit by digit (issue 25): the same number as the general parse,
    /// which still reads everything else, and the same errors.
    @Test func numbersReadTheSameWhateverTheirSpelling() throws {
        let spellings = [
            "0", "-0", "7", "-45", "007", "123456789012345", "-999999999999999", "1234567890123456", "99999999999999999999",
            "1.5", "-0.25", "1e3", "2E-2", "1.0", "+1",
        ]
        for spelling in spellings {
            let document = try decode(#"{"sku": "a", "price": \#(spelling)}"#)
            let expected = try #require(Double(spelling))
            guard case .number(let number)? = document.values[4] else {
                Issue.record("\(spelling): \(document.values)")
                continue
            }
            #expect(number == expected && number.sign == expected.sign, "\(spelling)")
        }
        for bad in ["-", "--1", "1-", "0x10", "1..2"] {
            #expect(error(#"{"sku": "a", "price": \#(bad)}"#) != nil, "\(bad)")
        }
        #expect(try decode(#"{"sku": 1234567890123456789, "title": "x"}"#).id == "1234567890123456789")
    }

    /// A string field read straight from the bytes (issue 25) reads escapes, space, null and
    /// wrong types as the general path does.
    @Test func stringFieldsReadTheSameOnTheDirectPath() throws {
        let document = try decode(#"{"sku": "a", "title" :   "Caf\u00e9 \"Noir\"\n", "description": null, "brand": "B"}"#)
        #expect(document.values[0] == .string("Café \"Noir\"\n"))
        #expect(document.values[2] == nil)
        #expect(document.values[3] == .string("B"))
        #expect(error(#"{"sku": "a", "title": 12}"#) == .wrongType(field: "title", expected: .string))
        #expect(error(#"{"sku": "a", "title": "unterminated}"#) != nil)
        var limits = CollectionDocumentLimits()
        limits.maxStringBytes = 3
        #expect(error(#"{"sku": "a", "brand": "long"}"#, limits: limits) == .stringTooLong(field: "brand", bytes: 4, limit: 3))
    }

    @Test func idErrors() {
        #expect(error(#"{"title": "x"}"#) == .missingId(field: "sku"))
        #expect(error(#"{"sku": true}"#) == .invalidId(field: "sku", reason: "must be a string or an integer"))
        #expect(error(#"{"sku": null}"#) == .invalidId(field: "sku", reason: "must be a string or an integer"))
        #expect(error(#"{"sku": 1.5}"#) == .invalidId(field: "sku", reason: "must be a string or an integer, not a fraction"))
        #expect(error(#"{"sku": 1e3}"#) == .invalidId(field: "sku", reason: "must be a string or an integer, not a fraction"))
        #expect(error(#"{"sku": ""}"#) == .invalidId(field: "sku", reason: "is empty"))
        #expect(error(#"{"sku": "a/b"}"#) == .invalidId(field: "sku", reason: "contains a control character or '/'"))
        #expect(error(#"{"sku": "a\u0001"}"#) == .invalidId(field: "sku", reason: "contains a control character or '/'"))
        var limits = CollectionDocumentLimits()
        limits.maxIdBytes = 4
        #expect(error(#"{"sku": "abcde"}"#, limits: limits) == .idTooLong(bytes: 5, limit: 4))
        #expect(error(#"{"sku": 123456}"#, limits: limits) == .idTooLong(bytes: 6, limit: 4))
    }

    @Test func wrongTypesNameTheField() {
        #expect(error(#"{"sku": "1", "title": 5}"#) == .wrongType(field: "title", expected: .string))
        #expect(error(#"{"sku": "1", "tags": "red"}"#) == .wrongType(field: "tags", expected: .stringArray))
        #expect(error(#"{"sku": "1", "tags": ["red", 1]}"#) == .wrongType(field: "tags", expected: .stringArray))
        #expect(error(#"{"sku": "1", "price": "12"}"#) == .wrongType(field: "price", expected: .number))
        #expect(error(#"{"sku": "1", "inStock": 1}"#) == .wrongType(field: "inStock", expected: .boolean))
        #expect(error(#"{"sku": "1", "store": [1, 2]}"#) == .wrongType(field: "store", expected: .geo))
        #expect(error(#"{"sku": "1", "store": {"lat": 1}}"#) == .invalidGeo(field: "store", reason: #"expected {"lat": number, "lng": number}"#))
        #expect(error(#"{"sku": "1", "store": {"lat": 1, "lng": "2"}}"#) == .invalidGeo(field: "store", reason: #"expected {"lat": number, "lng": number}"#))
        // The id field declared with another type than string.
        let schema = CollectionSchema(fields: [FieldSchema(name: "id", type: .number)])
        #expect(error(#"{"id": 1}"#, schema: schema) == .wrongType(field: "id", expected: .number))
    }

    @Test func rangesAndLimits() {
        #expect(error(#"{"sku": "1", "price": 1e400}"#) == .nonFiniteNumber(field: "price"))
        #expect(error(#"{"sku": "1", "store": {"lat": 90.5, "lng": 0}}"#) == .latitudeOutOfRange(field: "store", 90.5))
        #expect(error(#"{"sku": "1", "store": {"lat": 0, "lng": -180.01}}"#) == .longitudeOutOfRange(field: "store", -180.01))
        #expect(error(#"{"sku": "1", "store": {"lat": 90, "lng": -180}}"#) == nil)
        var limits = CollectionDocumentLimits()
        limits.maxStringBytes = 3
        limits.maxArrayElements = 2
        #expect(error(#"{"sku": "1", "title": "abcd"}"#, limits: limits) == .stringTooLong(field: "title", bytes: 4, limit: 3))
        #expect(error(#"{"sku": "1", "tags": ["a", "abcd"]}"#, limits: limits) == .stringTooLong(field: "tags", bytes: 4, limit: 3))
        #expect(error(#"{"sku": "1", "tags": ["a", "b", "c"]}"#, limits: limits) == .tooManyElements(field: "tags", count: 3, limit: 2))
        // Undeclared strings are stored, not bounded by the string limit.
        #expect(error(#"{"sku": "1", "notes": "a long note"}"#, limits: limits) == nil)
        limits.maxBodyBytes = 10
        #expect(error(#"{"sku": "12345678"}"#, limits: limits) == .bodyTooLarge(bytes: 19, limit: 10))
    }

    @Test func malformedJSON() {
        for json in [#"[1]"#, #""x""#, "", #"{"sku": "1""#, #"{"sku": "1"} x"#, #"{"sku": "1", "a": [1,}"#, #"{"sku": "1", "a": tru}"#, #"{"sku" "1"}"#] {
            guard case .invalidJSON? = error(json) else {
                Issue.record("expected invalid JSON for \(json), got \(String(describing: error(json)))")
                continue
            }
        }
        #expect(error(#"{"sku": "1", "title": "a", "title": "b"}"#) == .duplicateField("title"))
        // Deep nesting in an undeclared field is refused, not a crash.
        let deep = #"{"sku": "1", "x": "# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}"
        guard case .invalidJSON(_, let reason)? = error(deep) else {
            Issue.record("deep nesting accepted")
            return
        }
        #expect(reason == "nested too deep")
    }

    @Test func geoFromTwoFields() throws {
        let schema = CollectionSchema(fields: [
            FieldSchema(name: "lat", type: .number),
            FieldSchema(name: "location", type: .geo, from: GeoSource(latitude: "lat", longitude: "lon")),
        ])
        #expect(try decode(#"{"id": "1", "lat": 48.5, "lon": 2.25}"#, schema: schema).values
            == [.number(48.5), .geo(GeoPoint(latitude: 48.5, longitude: 2.25))])
        // Numeric strings, as CSV carries them.
        #expect(try decode(#"{"id": "1", "lat": 48.5, "lon": " 2.25 "}"#, schema: schema).values[1] == .geo(GeoPoint(latitude: 48.5, longitude: 2.25)))
        #expect(try decode(#"{"id": "1"}"#, schema: schema).values == [nil, nil])
        #expect(error(#"{"id": "1", "lat": 48.5}"#, schema: schema) == .invalidGeo(field: "location", reason: "needs both 'lat' and 'lon'"))
        #expect(error(#"{"id": "1", "lat": 48.5, "lon": "east"}"#, schema: schema) == .invalidGeo(field: "location", reason: "'lon' is not a number"))
        #expect(error(#"{"id": "1", "lat": 91, "lon": 0}"#, schema: schema) == .latitudeOutOfRange(field: "location", 91))
    }

    /// A `string[]` value is read straight into strings when it is one (the common case); every
    /// other shape is read and reported as a general value is.
    @Test func stringArraysOfEveryShape() throws {
        #expect(try decode(#"{"sku": "1", "tags": [ "a" , "b\"c\u00e9" ]}"#).values[1] == .strings(["a", "b\"cé"]))
        #expect(try decode(#"{"sku": "1", "tags": [ ]}"#).values[1] == .strings([]))
        #expect(try decode(#"{"sku": "1", "tags": null}"#).values[1] == nil)
        #expect(try decode(#"{"sku": "1", "tags": ["a"], "title": "t"}"#).values[0] == .string("t"))
        #expect(error(#"{"sku": "1", "tags": [null]}"#) == .wrongType(field: "tags", expected: .stringArray))
        #expect(error(#"{"sku": "1", "tags": ["a", ["b"]]}"#) == .wrongType(field: "tags", expected: .stringArray))
        for json in [#"{"sku": "1", "tags": ["a",]}"#, #"{"sku": "1", "tags": ["a" "b"]}"#, #"{"sku": "1", "tags": ["a"#, #"{"sku": "1", "tags": ["a", "b\"#] {
            guard case .invalidJSON? = error(json) else {
                Issue.record("expected invalid JSON for \(json), got \(String(describing: error(json)))")
                continue
            }
        }
        // At the limits exactly: taken; one over: refused, with the whole count.
        var limits = CollectionDocumentLimits()
        limits.maxStringBytes = 3
        limits.maxArrayElements = 2
        #expect(try decode(#"{"sku": "1", "tags": ["abc", "d"]}"#, limits: limits).values[1] == .strings(["abc", "d"]))
        #expect(error(#"{"sku": "1", "tags": ["a", "b", "c", "d"]}"#, limits: limits) == .tooManyElements(field: "tags", count: 4, limit: 2))
    }

    /// A duplicate key is found among any number of declared fields (past the first 64 too).
    @Test func aDuplicateKeyIsFoundAmongManyFields() {
        let schema = CollectionSchema(fields: (0..<70).map { FieldSchema(name: "f\($0)", type: .number) })
        #expect(error(#"{"id": "1", "f0": 1, "f69": 2, "f0": 3}"#, schema: schema) == .duplicateField("f0"))
        #expect(error(#"{"id": "1", "f69": 1, "f0": 2, "f69": 3}"#, schema: schema) == .duplicateField("f69"))
        #expect(error(#"{"id": "1", "f63": 1, "f64": 2, "f65": 3}"#, schema: schema) == nil)
    }

    /// Strings and keys are scanned eight bytes a step for their end: the closing quote, or an
    /// escape at any offset, in strings of every length around the step's bounds (and past
    /// non-ASCII bytes), reads as Foundation reads it. The key (undeclared, skipped) takes the same path.
    @Test func stringsEndWhereverTheirQuoteOrEscapeFalls() throws {
        let schema = CollectionSchema(idField: "sku", fields: [FieldSchema(name: "title", type: .string)])
        // As written in the JSON: nothing, a two-byte letter, escapes, a DEL byte.
        let pieces = ["", "é", #"\""#, #"\\"#, #"\n"#, #"\u00e9"#, "\u{7F}"]
        for length in 0..<20 {
            for piece in pieces {
                for at in 0...length {
                    let inner = String(repeating: "x", count: at) + piece + String(repeating: "y", count: length - at)
                    let json = #"{"sku": "1", "k"# + inner + #"": 1, "title": ""# + inner + #""}"#
                    let object = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
                    #expect(try decode(json, schema: schema).values[0] == .string(try #require(object["title"] as? String)), "\(json)")
                }
            }
        }
    }

    /// Keys are told apart by their length and first eight bytes, then the rest: names sharing
    /// their first eight bytes, a prefix of another name, or differing only in the last byte.
    @Test func keysSharingTheirFirstBytesAreToldApart() throws {
        let schema = CollectionSchema(idField: "identifier", fields: [
            FieldSchema(name: "description_long", type: .string), FieldSchema(name: "description_short", type: .string),
            FieldSchema(name: "descript", type: .string), FieldSchema(name: "description_lonh", type: .number),
        ])
        let document = try decode(
            #"{"description_lonG": 1, "description_short": "s", "descriptio": 2, "description_long": "l", "descript": "d", "#
                + #""description_lonh": 3, "identifier": "x", "identifie": 4, "description_longer": 5}"#, schema: schema)
        #expect(document.id == "x")
        #expect(document.values == [.string("l"), .string("s"), .string("d"), .number(3)])
        #expect(error(#"{"identifier": "x", "description_long": "a", "description_long": "b"}"#, schema: schema)
            == .duplicateField("description_long"))
    }

    @Test func errorsReadAsSentences() {
        #expect(DocumentError.wrongType(field: "price", expected: .number).description == "field 'price' must be a number")
        #expect(DocumentError.missingId(field: "sku").description == "the id field 'sku' is missing")
    }
}
