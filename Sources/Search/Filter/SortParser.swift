/// Parses the `sort` parameter of a collection search:
/// `price:desc,title:asc,_geoPoint(48.85, 2.35):asc` → `[SortKey]`, first key first.
///
/// A key is a declared field that has one value to order by (`string`, `number`, `boolean`;
/// not `string[]`, and a geo field is sorted by distance with `_geoPoint(lat, lng)`), then
/// `:asc` or `:desc` (any case). Errors carry positions as `FilterParser`'s do.
public struct SortParser: Sendable {
    /// Default of `maxKeys`.
    public static let defaultMaxKeys = 3
    /// Default of `maxLength`, in UTF-8 bytes.
    public static let defaultMaxLength = 1_024

    public var schema: CollectionSchema
    /// Most keys in one sort.
    public var maxKeys: Int
    /// Longest sort text, in UTF-8 bytes.
    public var maxLength: Int

    public init(schema: CollectionSchema, maxKeys: Int = defaultMaxKeys, maxLength: Int = defaultMaxLength) {
        self.schema = schema
        self.maxKeys = maxKeys
        self.maxLength = maxLength
    }

    /// The keys `text` names; empty when it is blank.
    public func parse(_ text: String) throws(FilterError) -> [SortKey] {
        let bytes = text.utf8.count
        guard bytes <= maxLength else {
            throw FilterError(position: 0, "the sort is \(bytes) bytes long; the limit is \(maxLength)")
        }
        let tokens = try FilterLexer.tokens(of: text)
        var cursor = FilterParser.Cursor(tokens: tokens, schema: schema, maxDepth: 0, subject: "sort")
        var keys: [SortKey] = []
        var fieldsSorted: Set<String> = []
        while cursor.current.kind != .end {
            if !keys.isEmpty {
                guard cursor.current.kind == .comma else { throw cursor.expected("',' or the end of the sort") }
                cursor.advance()
            }
            let start = cursor.current
            guard keys.count < maxKeys else {
                throw FilterError(position: start.position, "more than \(maxKeys) sort keys")
            }
            let key = try self.key(&cursor)
            if case .field(let name, _) = key, !fieldsSorted.insert(name).inserted {
                throw FilterError(position: start.position, "'\(name)' is already a sort key")
            }
            keys.append(key)
        }
        return keys
    }

    private func key(_ cursor: inout FilterParser.Cursor) throws(FilterError) -> SortKey {
        let token = cursor.current
        guard case .word(let word) = token.kind else {
            throw cursor.expected("a sort key: field:asc, field:desc or _geoPoint(lat, lng):asc")
        }
        if word == "_geoPoint" {
            return try distance(&cursor)
        }
        cursor.advance()
        let colon = word.unicodeScalars.firstIndex(of: ":")
        let name = String(word.unicodeScalars[..<(colon ?? word.unicodeScalars.endIndex)])
        guard let field = schema.field(named: name) else {
            throw FilterError(position: token.position, "the field '\(FilterToken.abbreviated(name))' is not declared in the collection's schema")
        }
        switch field.type {
        case .geo:
            throw FilterError(position: token.position, "'\(name)' is a geo field: sort by distance with _geoPoint(lat, lng):asc")
        case .stringArray:
            throw FilterError(position: token.position, "'\(name)' is a string[] field, which has no one value to sort by")
        case .string, .number, .boolean:
            break
        }
        guard let colon else {
            throw FilterError(position: token.position + name.unicodeScalars.count, "expected ':asc' or ':desc' after '\(name)'")
        }
        let direction = String(word.unicodeScalars[word.unicodeScalars.index(after: colon)...])
        let descending = try Self.isDescending(direction, at: token.position + name.unicodeScalars.count + 1)
        return .field(name, descending: descending)
    }

    /// `_geoPoint(lat, lng):asc|desc`, the cursor on `_geoPoint`.
    private func distance(_ cursor: inout FilterParser.Cursor) throws(FilterError) -> SortKey {
        try cursor.requireGeoField(cursor.current)
        cursor.advance()
        try cursor.expect(.leftParenthesis, "'('", hint: "_geoPoint(lat, lng):asc")
        let latitude = try cursor.number("the latitude", limit: 90)
        try cursor.expect(.comma, "','")
        let longitude = try cursor.number("the longitude", limit: 180)
        try cursor.expect(.rightParenthesis, "')'", hint: "_geoPoint takes 2 numbers: lat, lng")
        let token = cursor.current
        guard case .word(let word) = token.kind, word.hasPrefix(":") else {
            throw cursor.expected("':asc' or ':desc'")
        }
        cursor.advance()
        let descending = try Self.isDescending(String(word.dropFirst()), at: token.position + 1)
        return .distance(from: GeoPoint(latitude: latitude, longitude: longitude), descending: descending)
    }

    private static func isDescending(_ direction: String, at position: Int) throws(FilterError) -> Bool {
        switch direction.lowercased() {
        case "asc": return false
        case "desc": return true
        default: throw FilterError(position: position, "expected asc or desc, found '\(FilterToken.abbreviated(direction))'")
        }
    }
}
