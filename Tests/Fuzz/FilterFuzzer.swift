// libFuzzer entry point for the filter, sort and facets parsers, built by `scripts/fuzz filter`
// (not by SwiftPM).
//
// An input is UTF-8 text (invalid bytes repaired); its first byte picks the schema (with or
// without a geo field) and the rest is parsed as a `filter`, a `sort` and `facets` of a products
// collection. Every outcome must be a value or a `FilterError` whose position lies within the
// text, never a trap. The fuzzer stops with a crash when an accepted filter breaks what the
// engine relies on: a field that is not declared, a value of another type than its field's, an
// ordering on a non-number field, a number not finite, a coordinate out of range, a negative
// radius, nesting beyond the bound; or when the filter, written back as text (every value
// quoted), parses to another expression; or when the engine's three ways of evaluating it
// disagree on a small index of products: as a document set (an empty `q`), per document and as a
// set behind a text query, and the live queries' per-document predicate (`DocumentPredicate`).

@testable import Search

let schemas = [
    CollectionSchema(
        idField: "sku",
        fields: [
            FieldSchema(name: "title", type: .string, search: true), FieldSchema(name: "tags", type: .stringArray),
            FieldSchema(name: "price", type: .number), FieldSchema(name: "inStock", type: .boolean),
            FieldSchema(name: "store", type: .geo, from: GeoSource(latitude: "lat", longitude: "lon")),
        ], rank: "price"),
    CollectionSchema(fields: [FieldSchema(name: "name", type: .string), FieldSchema(name: "n", type: .number)]),
]
let maxDepth = 6

@_cdecl("LLVMFuzzerTestOneInput")
public func filterFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let schema = schemas[Int(data[0]) % schemas.count]
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    let scalars = text.unicodeScalars.count

    let parser = FilterParser(schema: schema, maxDepth: maxDepth)
    do {
        if let expression = try parser.parse(text) {
            check(expression, schema: schema, depth: 0)
            let written = write(expression)
            guard let again = try? FilterParser(schema: schema, maxDepth: 100, maxLength: 1 << 20).parse(written) else {
                fatalError("the filter written back does not parse: \(text.debugDescription) -> \(written.debugDescription)")
            }
            if again != expression {
                fatalError("the filter written back parses differently: \(text.debugDescription) -> \(written.debugDescription)")
            }
            if schema == schemas[0] { evaluate(expression, text: text) }
        }
    } catch {
        if error.position < 0 || error.position > scalars { fatalError("position \(error.position) outside \(text.debugDescription)") }
    }
    do {
        let keys = try SortParser(schema: schema).parse(text)
        if keys.count > SortParser.defaultMaxKeys { fatalError("\(keys.count) sort keys") }
        for key in keys {
            switch key {
            case .field(let name, _):
                guard let field = schema.field(named: name), field.type != .geo, field.type != .stringArray else {
                    fatalError("sorted by \(name) in \(text.debugDescription)")
                }
            case .distance(let point, _):
                if !point.isValid { fatalError("sorted by distance from \(point)") }
            }
        }
    } catch {
        if error.position < 0 || error.position > scalars { fatalError("position \(error.position) outside \(text.debugDescription)") }
    }
    do {
        let names = try FacetsParser(schema: schema).parse(text)
        if names.count > FacetsParser.defaultMaxFacets || Set(names).count != names.count { fatalError("facets \(names)") }
        for name in names where schema.field(named: name) == nil || schema.field(named: name)?.type == .geo {
            fatalError("facet \(name) in \(text.debugDescription)")
        }
    } catch {
        if error.position < 0 || error.position > scalars { fatalError("position \(error.position) outside \(text.debugDescription)") }
    }
    return 0
}

/// Products with every kind of value, some missing, some near the antimeridian and the poles,
/// in two segments with replaced and deleted documents (the second batch).
let products: [CollectionDocument] = {
    let brands = ["acme", "Zeta", "ACME", "x", "", "é"]
    let decoder = CollectionDocumentDecoder(schema: schemas[0])
    return (0..<40).map { n in
        var members = [#""sku":"\#(n)""#, #""title":"p \#(brands[n % brands.count]) \#(n)""#]
        if n % 4 != 3 { members.append(#""tags":[\#((0..<(n % 3)).map { #""\#(brands[($0 + n) % brands.count])""# }.joined(separator: ","))]"#) }
        if n % 5 != 4 { members.append(#""price":\#(Double(n % 9) * 1.5 - 3)"#) }
        if n % 3 != 2 { members.append(#""inStock":\#(n % 2 == 0)"#) }
        if n % 6 != 5 {
            let latitude = Double((n * 37) % 180) - 89.5, longitude = Double((n * 53) % 360) - 179.75
            members.append(#""lat":\#(latitude),"lon":\#(longitude)"#)
        }
        return try! decoder.decode(Array(("{" + members.joined(separator: ",") + "}").utf8))
    }
}()

/// The same documents indexed with each way a text query may apply its filter.
let indexes: [CollectionIndex] = [TextFilterStrategy.byCost, .perDocument, .asSet].map { strategy in
    var configuration = CollectionIndex.Configuration()
    configuration.textFilter = strategy
    configuration.recentSegmentDocuments = 8
    let index = CollectionIndex(schema: schemas[0], documents: Array(products[..<30]), configuration: configuration)
    _ = index.apply(products[30...].map(CollectionChange.upsert) + [.delete(id: "3"), .upsert(products[7])])
    return index
}
let live = Set(products.map(\.id)).subtracting(["3"])

/// The filter evaluated every way the engine does must give the same documents.
func evaluate(_ expression: FilterExpression, text: String) {
    let query = CollectionQuery(filter: expression, limit: CollectionQuery.Limits.maxLimit)
    let bySet = Set(indexes[0].search(query).hits.map(\.id))
    let matcher = CollectionQueryMatcher(query, schema: schemas[0])
    let byPredicate = Set(products.filter { live.contains($0.id) && matcher.matches(CollectionMatchCandidate($0, schema: schemas[0])) }.map(\.id))
    if bySet != byPredicate {
        fatalError("filter \(text.debugDescription): as a set \(bySet.sorted()), per document \(byPredicate.sorted())")
    }
    var withText = query
    withText.text = "p"
    for index in indexes {
        let result = index.search(withText)
        if Set(result.hits.map(\.id)) != bySet || result.total != bySet.count {
            fatalError("filter \(text.debugDescription) behind a text query (\(index.configuration.textFilter)): \(result.hits.map(\.id).sorted()) != \(bySet.sorted())")
        }
    }
}

/// What the engine relies on in an accepted expression.
func check(_ expression: FilterExpression, schema: CollectionSchema, depth: Int) {
    func field(_ name: String) -> FieldSchema {
        guard let field = schema.field(named: name) else { fatalError("undeclared field \(name) in \(expression)") }
        return field
    }
    func checkValue(_ value: FilterValue, of field: FieldSchema) {
        switch (field.type, value) {
        case (.string, .string), (.stringArray, .string), (.boolean, .boolean): return
        case (.number, .number(let number)): if !number.isFinite { fatalError("number \(number)") }
        default: fatalError("value \(value) for \(field)")
        }
    }
    // Each NOT or parenthesis is one level; an AND or OR list under a parenthesis is not a level
    // of its own, so the expression may nest up to twice the bound, plus the lists at the top.
    if depth > 2 * maxDepth + 2 { fatalError("nested \(depth) deep: \(expression)") }
    switch expression {
    case .compare(let name, let comparison, let value):
        let field = field(name)
        if comparison != .equal, comparison != .notEqual, field.type != .number { fatalError("\(comparison) on \(field)") }
        checkValue(value, of: field)
    case .oneOf(let name, let values):
        let field = field(name)
        for value in values { checkValue(value, of: field) }
    case .between(let name, let low, let high):
        let field = field(name)
        if field.type != .number { fatalError("TO on \(field)") }
        checkValue(low, of: field)
        checkValue(high, of: field)
    case .exists(let name):
        _ = field(name)
    case .geoRadius(let center, let meters):
        if !center.isValid || !(meters >= 0) || !meters.isFinite { fatalError("bad radius \(expression)") }
        if !schema.fields.contains(where: { $0.type == .geo }) { fatalError("geo without a geo field") }
    case .geoBoundingBox(let topLeft, let bottomRight):
        if !topLeft.isValid || !bottomRight.isValid || topLeft.latitude < bottomRight.latitude { fatalError("bad box \(expression)") }
        if !schema.fields.contains(where: { $0.type == .geo }) { fatalError("geo without a geo field") }
    case .not(let inner):
        check(inner, schema: schema, depth: depth + 1)
    case .and(let operands), .or(let operands):
        if operands.count < 2 { fatalError("a list of \(operands.count): \(expression)") }
        for operand in operands { check(operand, schema: schema, depth: depth + 1) }
    }
}

/// A number as a bare word: Swift writes `1.1e+33`, and `+` is not a word character.
func bare(_ number: Double) -> String {
    "\(number)".replacingOccurrences(of: "e+", with: "e")
}

/// The expression as filter text, every name and value quoted, every list parenthesized.
func write(_ expression: FilterExpression) -> String {
    // Escaped scalar by scalar: String's replacingOccurrences compares characters, and a quote
    // followed by a combining mark (U+0740) is one character that is not a quote.
    func quoted(_ text: String) -> String {
        var written = String.UnicodeScalarView()
        written.append("\"")
        for scalar in text.unicodeScalars {
            if scalar == "\\" || scalar == "\"" { written.append("\\") }
            written.append(scalar)
        }
        written.append("\"")
        return String(written)
    }
    func value(_ value: FilterValue) -> String {
        switch value {
        case .string(let text): return quoted(text)
        case .number(let number): return quoted("\(number)")
        case .boolean(let flag): return "\(flag)"
        }
    }
    switch expression {
    case .compare(let field, let comparison, let operand): return "\(quoted(field)) \(comparison.rawValue) \(value(operand))"
    case .oneOf(let field, let values): return "\(quoted(field)) IN [\(values.map(value).joined(separator: ", "))]"
    case .between(let field, let low, let high): return "\(quoted(field)) \(value(low)) TO \(value(high))"
    case .exists(let field): return "\(quoted(field)) EXISTS"
    case .geoRadius(let center, let meters): return "_geoRadius(\(bare(center.latitude)), \(bare(center.longitude)), \(bare(meters)))"
    case .geoBoundingBox(let a, let b):
        return "_geoBoundingBox([\(bare(a.latitude)), \(bare(a.longitude))], [\(bare(b.latitude)), \(bare(b.longitude))])"
    case .not(let inner): return "NOT (\(write(inner)))"
    case .and(let operands): return "(" + operands.map(write).joined(separator: ") AND (") + ")"
    case .or(let operands): return "(" + operands.map(write).joined(separator: ") OR (") + ")"
    }
}
