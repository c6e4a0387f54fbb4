import Testing

@testable import Search

@Suite struct FilterParserTests {
    let parser = FilterParser(schema: Products.schema)

    func parse(_ text: String) throws -> FilterExpression? { try parser.parse(text) }

    /// The error's description, or nil when `text` parses.
    func error(_ text: String, parser: FilterParser? = nil) -> String? {
        do {
            _ = try (parser ?? self.parser).parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func everyComparisonOperator() throws {
        #expect(try parse("price = 10") == .compare(field: "price", .equal, .number(10)))
        #expect(try parse("price != 10") == .compare(field: "price", .notEqual, .number(10)))
        #expect(try parse("price > 10.5") == .compare(field: "price", .greater, .number(10.5)))
        #expect(try parse("price >= -3") == .compare(field: "price", .greaterOrEqual, .number(-3)))
        #expect(try parse("price < 1e3") == .compare(field: "price", .less, .number(1000)))
        #expect(try parse("price <= .5") == .compare(field: "price", .lessOrEqual, .number(0.5)))
        #expect(try parse("price>=10") == .compare(field: "price", .greaterOrEqual, .number(10)))
        #expect(try parse("title = Phone") == .compare(field: "title", .equal, .string("phone")))
        #expect(try parse("tags != RED") == .compare(field: "tags", .notEqual, .string("red")))
        #expect(try parse("inStock = true") == .compare(field: "inStock", .equal, .boolean(true)))
        #expect(try parse("inStock != FALSE") == .compare(field: "inStock", .notEqual, .boolean(false)))
    }

    @Test func inToExistsAndTheirNegations() throws {
        #expect(try parse("brand IN [Acme, 'Big Co', \"x\"]") == .oneOf(field: "brand", [.string("acme"), .string("big co"), .string("x")]))
        #expect(try parse("price IN [1, 2,]") == .oneOf(field: "price", [.number(1), .number(2)]))
        #expect(try parse("price IN []") == .oneOf(field: "price", []))
        #expect(try parse("brand NOT IN [a]") == .not(.oneOf(field: "brand", [.string("a")])))
        #expect(try parse("price 10 TO 20") == .between(field: "price", .number(10), .number(20)))
        #expect(try parse("price -5.5 TO '7'") == .between(field: "price", .number(-5.5), .number(7)))
        #expect(try parse("brand EXISTS") == .exists(field: "brand"))
        #expect(try parse("store EXISTS") == .exists(field: "store"))
        #expect(try parse("brand NOT EXISTS") == .not(.exists(field: "brand")))
    }

    @Test func andBindsTighterThanOr() throws {
        let a = FilterExpression.compare(field: "brand", .equal, .string("a"))
        let b = FilterExpression.compare(field: "brand", .equal, .string("b"))
        let c = FilterExpression.compare(field: "brand", .equal, .string("c"))
        #expect(try parse("brand = a OR brand = b AND brand = c") == .or([a, .and([b, c])]))
        #expect(try parse("brand = a AND brand = b OR brand = c") == .or([.and([a, b]), c]))
        #expect(try parse("brand = a OR brand = b OR brand = c") == .or([a, b, c]))
        #expect(try parse("(brand = a OR brand = b) AND brand = c") == .and([.or([a, b]), c]))
        #expect(try parse("((brand = a))") == a)
        #expect(try parse("NOT brand = a AND brand = b") == .and([.not(a), b]))
        #expect(try parse("NOT (brand = a AND brand = b)") == .not(.and([a, b])))
        #expect(try parse("NOT NOT brand = a") == .not(.not(a)))
    }

    @Test func keywordsInAnyCase() throws {
        let a = FilterExpression.compare(field: "brand", .equal, .string("a"))
        let b = FilterExpression.compare(field: "brand", .equal, .string("b"))
        #expect(try parse("brand = a and brand = b") == .and([a, b]))
        #expect(try parse("brand = a Or not brand = b") == .or([a, .not(b)]))
        #expect(try parse("brand in [a] AND price 1 to 2 AND brand exists AND brand Not Exists") == .and([
            .oneOf(field: "brand", [.string("a")]), .between(field: "price", .number(1), .number(2)),
            .exists(field: "brand"), .not(.exists(field: "brand")),
        ]))
    }

    @Test func quotingAndEscapes() throws {
        #expect(try parse(#"title = "Hello World""#) == .compare(field: "title", .equal, .string("hello world")))
        #expect(try parse(#"title = 'it\'s'"#) == .compare(field: "title", .equal, .string("it's")))
        #expect(try parse(#"title = "say \"hi\"""#) == .compare(field: "title", .equal, .string(#"say "hi""#)))
        #expect(try parse(#"title = "back\\slash""#) == .compare(field: "title", .equal, .string(#"back\slash"#)))
        #expect(try parse(#"title = "a\nb""#) == .compare(field: "title", .equal, .string(#"a\nb"#)))
        #expect(try parse(#"title = "AND""#) == .compare(field: "title", .equal, .string("and")))
        #expect(try parse(#"title = """#) == .compare(field: "title", .equal, .string("")))
        #expect(try parse(#""title" = x"#) == .compare(field: "title", .equal, .string("x")))
        #expect(try parse("title = 10:30") == .compare(field: "title", .equal, .string("10:30")))
        #expect(try parse("title = ÉCOLE_b-1.2") == .compare(field: "title", .equal, .string("école_b-1.2")))
        #expect(try parse("title = 東京") == .compare(field: "title", .equal, .string("東京")))
        #expect(try parse("title = 42") == .compare(field: "title", .equal, .string("42")))
        #expect(try parse(" \t title\n=\nx ") == .compare(field: "title", .equal, .string("x")))
    }

    @Test func foldIsLowercasedAndKeepsAccents() {
        #expect(FilterValue.fold("CAFÉ Straße") == "café straße")
        #expect(FilterValue.fold("CAFÉ") == FilterValue.fold("Café"))
        #expect(FilterValue.fold("café") != FilterValue.fold("cafe"))
    }

    @Test func geoFunctions() throws {
        #expect(try parse("_geoRadius(48.85, 2.35, 1000)") == .geoRadius(center: GeoPoint(latitude: 48.85, longitude: 2.35), meters: 1000))
        #expect(try parse("_geoRadius( -90 ,180,0 )") == .geoRadius(center: GeoPoint(latitude: -90, longitude: 180), meters: 0))
        #expect(try parse("_geoBoundingBox([50, -10], [40.5, 10])") == .geoBoundingBox(
            topLeft: GeoPoint(latitude: 50, longitude: -10), bottomRight: GeoPoint(latitude: 40.5, longitude: 10)))
        // Across the antimeridian: the left longitude is greater than the right one.
        #expect(try parse("_geoBoundingBox([10, 170], [-10, -170])") == .geoBoundingBox(
            topLeft: GeoPoint(latitude: 10, longitude: 170), bottomRight: GeoPoint(latitude: -10, longitude: -170)))
        #expect(try parse("_geoRadius(0, 0, 10) AND NOT price > 5") == .and([
            .geoRadius(center: GeoPoint(latitude: 0, longitude: 0), meters: 10),
            .not(.compare(field: "price", .greater, .number(5))),
        ]))
    }

    @Test func blankIsNoFilter() throws {
        #expect(try parse("") == nil)
        #expect(try parse("  \n ") == nil)
    }

    @Test func syntaxErrorsSayWhereAndWhatWasExpected() {
        #expect(error("price >") == "at 7: expected a value after '>', found the end of the filter")
        #expect(error("price > AND") == "at 8: expected a value after '>', found the keyword AND (quote it to use it as a name or a value)")
        #expect(error("price") == "at 5: expected an operator: =, !=, >, >=, <, <=, IN, NOT IN, TO, EXISTS or NOT EXISTS after 'price', found the end of the filter")
        #expect(error("price = 1 AND") == "at 13: expected a condition: a field name, '(', NOT, _geoRadius or _geoBoundingBox after 'AND', found the end of the filter")
        #expect(error("AND price = 1") == "at 0: expected a condition: a field name, '(', NOT, _geoRadius or _geoBoundingBox, found the keyword AND (quote it to use it as a name or a value)")
        #expect(error("price = 1 brand = a") == "at 10: expected AND, OR or the end of the filter after '1', found 'brand'")
        #expect(error("(price = 1") == "at 10: expected ')' to close the '(' at 0 after '1', found the end of the filter")
        #expect(error("price = 1)") == "at 9: ')' closes no '('")
        #expect(error("price 1 2") == "at 8: expected TO after '1', found '2' (a range is written 'price 10 TO 20')")
        #expect(error("price 1 TO") == "at 10: expected a value after 'TO', found the end of the filter")
        #expect(error("brand IN a") == "at 9: expected '[' after 'IN', found 'a' (a list is written 'IN [a, b]')")
        #expect(error("brand IN [a b]") == "at 12: expected ',' or ']' after 'a', found 'b'")
        #expect(error("brand IN [a,") == "at 12: expected a value or ']' after ',', found the end of the filter")
        #expect(error("brand NOT = a") == "at 10: expected IN or EXISTS after 'NOT', found '='")
        #expect(error("brand = 'open") == "at 8: the value quoted here is not closed: expected a closing '")
        #expect(error(#"brand = "x\""#) == #"at 8: the value quoted here is not closed: expected a closing ""#)
        #expect(error("brand ! a") == "at 6: expected '!=' ('!' alone is not an operator; use NOT)")
        #expect(error("brand = a & b") == "at 10: unexpected character '&': quote a value that has it")
        #expect(error("brand = _geoRadius(1, 2, 3)") == "at 8: _geoRadius(...) is a condition of its own, not a value")
        #expect(error("_geoPoint(1, 2)") == "at 0: _geoPoint cannot be filtered; filter by distance with _geoRadius(lat, lng, meters) or _geoBoundingBox([lat, lng], [lat, lng])")
    }

    @Test func typeErrorsNameTheFieldAndTheValue() {
        #expect(error("colour = red") == "at 0: the field 'colour' is not declared in the collection's schema")
        #expect(error("price > 1 AND Price = 2") == "at 14: the field 'Price' is not declared in the collection's schema")
        #expect(error("price > cheap") == "at 8: 'cheap' is not a number, and 'price' is a number field")
        #expect(error("price = 0x10") == "at 8: '0x10' is not a number, and 'price' is a number field")
        #expect(error("price = inf") == "at 8: 'inf' is not a number, and 'price' is a number field")
        #expect(error("price = 1e999") == "at 8: '1e999' is not a finite number")
        #expect(error("price IN [1, two]") == "at 13: 'two' is not a number, and 'price' is a number field")
        #expect(error("price one TO 2") == "at 6: 'one' is not a number, and 'price' is a number field")
        #expect(error("inStock = yes") == "at 10: 'yes' is not a boolean (true or false), and 'inStock' is a boolean field")
        #expect(error("title > a") == "at 6: '>' compares numbers, and 'title' is a string field")
        #expect(error("tags <= a") == "at 5: '<=' compares numbers, and 'tags' is a string[] field")
        #expect(error("inStock >= true") == "at 8: '>=' compares numbers, and 'inStock' is a boolean field")
        #expect(error("title a TO b") == "at 8: TO compares numbers, and 'title' is a string field")
        #expect(error("store = x") == "at 6: 'store' is a geo field: filter it with _geoRadius(lat, lng, meters) or _geoBoundingBox([lat, lng], [lat, lng])")
        #expect(error("store IN [x]") == "at 6: 'store' is a geo field: filter it with _geoRadius(lat, lng, meters) or _geoBoundingBox([lat, lng], [lat, lng])")
    }

    @Test func geoErrors() {
        #expect(error("_geoRadius(91, 0, 1)") == "at 11: the latitude 91 is outside -90...90")
        #expect(error("_geoRadius(0, -180.5, 1)") == "at 14: the longitude -180.5 is outside -180...180")
        #expect(error("_geoRadius(0, 0, -1)") == "at 17: the radius in meters must be 0 or more, not -1")
        #expect(error("_geoRadius(0, 0, 1e400)") == "at 17: '1e400' is not a finite number")
        #expect(error("_geoRadius(0, 0)") == "at 15: expected ',' after '0', found ')'")
        #expect(error("_geoRadius(0, 0, 1, 2)") == "at 18: expected ')' after '1', found ',' (_geoRadius takes 3 numbers: lat, lng, meters)")
        #expect(error("_geoRadius(a, 0, 1)") == "at 11: expected a number (the latitude) after '(', found 'a'")
        #expect(error("_geoRadius 1") == "at 11: expected '(' after '_geoRadius', found '1' (_geoRadius(lat, lng, meters))")
        #expect(error("_geoBoundingBox([0, 0], [10, 10])") == "at 16: the top-left corner's latitude is below the bottom-right corner's: give the top-left corner first")
        #expect(error("_geoBoundingBox([0, 200], [0, 0])") == "at 20: the top-left longitude 200 is outside -180...180")
        #expect(error("_geoBoundingBox([0, 0])") == "at 22: expected ',' after ']', found ')'")
        #expect(error("_geoBoundingBox(0, 0)") == "at 16: expected '[' after '(', found '0' (a point is written [lat, lng])")
        let noGeo = FilterParser(schema: Products.schemaWithoutGeo)
        #expect(error("price > 1 OR _geoRadius(1, 2, 3)", parser: noGeo) == "at 13: '_geoRadius' needs a geo field, and the collection declares none")
        #expect(error("_geoBoundingBox([1, 2], [0, 3])", parser: noGeo) == "at 0: '_geoBoundingBox' needs a geo field, and the collection declares none")
    }

    @Test func depthAndLengthAreBounded() throws {
        let ten = String(repeating: "(", count: 10) + "price = 1" + String(repeating: ")", count: 10)
        #expect(try parse(ten) == .compare(field: "price", .equal, .number(1)))
        let eleven = "(" + ten + ")"
        #expect(error(eleven) == "at 10: the filter nests deeper than 10 levels of parentheses and NOT")
        let nots = String(repeating: "NOT ", count: 11) + "price = 1"
        #expect(error(nots) == "at 40: the filter nests deeper than 10 levels of parentheses and NOT")
        #expect(error("NOT (" + String(repeating: "NOT ", count: 9) + "price = 1)") == "at 37: the filter nests deeper than 10 levels of parentheses and NOT")
        #expect(error("(((price = 1)))", parser: FilterParser(schema: Products.schema, maxDepth: 2)) == "at 2: the filter nests deeper than 2 levels of parentheses and NOT")
        // Deep nesting far beyond the bound is refused, not recursed into.
        let deep = String(repeating: "(", count: 4_000)
        #expect(error(deep) == "at 10: the filter nests deeper than 10 levels of parentheses and NOT")
        let long = "title = " + String(repeating: "a", count: 4_089)
        #expect(error(long) == "at 0: the filter is 4097 bytes long; the limit is 4096")
        #expect(error(String(long.dropLast())) == nil)
        #expect(error("title = é", parser: FilterParser(schema: Products.schema, maxLength: 9)) == "at 0: the filter is 10 bytes long; the limit is 9")
    }

    @Test func positionsCountCodePoints() {
        #expect(error("title = 'é' OR prix = 1") == "at 15: the field 'prix' is not declared in the collection's schema")
        #expect(error("title = '😀' OR prix = 1") == "at 15: the field 'prix' is not declared in the collection's schema")
    }
}
