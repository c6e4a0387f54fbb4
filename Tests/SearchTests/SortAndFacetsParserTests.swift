import Testing

@testable import Search

@Suite struct SortAndFacetsParserTests {
    let sort = SortParser(schema: Products.schema)
    let facets = FacetsParser(schema: Products.schema)

    func sortError(_ text: String, parser: SortParser? = nil) -> String? {
        do {
            _ = try (parser ?? sort).parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    func facetsError(_ text: String, parser: FacetsParser? = nil) -> String? {
        do {
            _ = try (parser ?? facets).parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func sortKeysInOrder() throws {
        #expect(try sort.parse("price:desc,title:asc,_geoPoint(48.85, 2.35):asc") == [
            .field("price", descending: true), .field("title", descending: false),
            .distance(from: GeoPoint(latitude: 48.85, longitude: 2.35), descending: false),
        ])
        #expect(try sort.parse(" inStock:DESC , _geoPoint(-1,2):Desc ") == [
            .field("inStock", descending: true), .distance(from: GeoPoint(latitude: -1, longitude: 2), descending: true),
        ])
        #expect(try sort.parse("") == [])
        #expect(try sort.parse("   ") == [])
    }

    @Test func sortErrors() {
        #expect(sortError("colour:asc") == "at 0: the field 'colour' is not declared in the collection's schema")
        #expect(sortError("price:asc,store:asc") == "at 10: 'store' is a geo field: sort by distance with _geoPoint(lat, lng):asc")
        #expect(sortError("tags:asc") == "at 0: 'tags' is a string[] field, which has no one value to sort by")
        #expect(sortError("price") == "at 5: expected ':asc' or ':desc' after 'price'")
        #expect(sortError("price:up") == "at 6: expected asc or desc, found 'up'")
        #expect(sortError("title:asc,price:") == "at 16: expected asc or desc, found ''")
        #expect(sortError("price:asc title:asc") == "at 10: expected ',' or the end of the sort after 'price:asc', found 'title:asc'")
        #expect(sortError("price:asc,") == "at 10: expected a sort key: field:asc, field:desc or _geoPoint(lat, lng):asc after ',', found the end of the sort")
        #expect(sortError("price:asc,title:asc,brand:asc,inStock:asc") == "at 30: more than 3 sort keys")
        #expect(sortError("price:asc,price:desc") == "at 10: 'price' is already a sort key")
        #expect(sortError("_geoPoint(91, 0):asc") == "at 10: the latitude 91 is outside -90...90")
        #expect(sortError("_geoPoint(1, 2)") == "at 15: expected ':asc' or ':desc' after ')', found the end of the sort")
        #expect(sortError("_geoPoint(1, 2):near") == "at 16: expected asc or desc, found 'near'")
        #expect(sortError("_geoPoint(1, 2, 3):asc") == "at 14: expected ')' after '2', found ',' (_geoPoint takes 2 numbers: lat, lng)")
        #expect(sortError("_geoPoint(1, 2):asc", parser: SortParser(schema: Products.schemaWithoutGeo)) == "at 0: '_geoPoint' needs a geo field, and the collection declares none")
        #expect(sortError("price:asc", parser: SortParser(schema: Products.schema, maxLength: 8)) == "at 0: the sort is 9 bytes long; the limit is 8")
        #expect(sortError("price:asc,title:asc", parser: SortParser(schema: Products.schema, maxKeys: 1)) == "at 10: more than 1 sort keys")
    }

    @Test func facetNamesDeduplicated() throws {
        #expect(try facets.parse("brand,price") == ["brand", "price"])
        #expect(try facets.parse(" brand , tags,brand, 'price' ") == ["brand", "tags", "price"])
        #expect(try facets.parse("inStock") == ["inStock"])
        #expect(try facets.parse("") == [])
    }

    @Test func facetErrors() {
        #expect(facetsError("brand,colour") == "at 6: the field 'colour' is not declared in the collection's schema")
        #expect(facetsError("store") == "at 0: 'store' is a geo field, which has no values to count")
        #expect(facetsError("brand,,price") == "at 6: expected a field name after ',', found ','")
        #expect(facetsError("brand price") == "at 6: expected ',' or the end of the facets after 'brand', found 'price'")
        #expect(facetsError(",brand") == "at 0: expected a field name, found ','")
        let two = FacetsParser(schema: Products.schema, maxFacets: 2)
        #expect(facetsError("brand,price,brand,price", parser: two) == nil)
        #expect(facetsError("brand,price,title", parser: two) == "at 12: more than 2 facets")
        #expect(facetsError("brand", parser: FacetsParser(schema: Products.schema, maxLength: 4)) == "at 0: the facets are 5 bytes long; the limit is 4")
    }
}
