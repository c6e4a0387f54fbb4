/// The schema's JSON, as `PUT /collections/{name}` takes it and `GET /collections` shows it:
///
/// ```json
/// {"id": "sku", "fields": [{"name": "title", "type": "string", "search": true},
///   {"name": "tags", "type": "string[]"}, {"name": "price", "type": "number"},
///   {"name": "store", "type": "geo", "from": ["lat", "lon"]}], "rank": "price", "public": false}
/// ```
///
/// `id` (default `"id"`), `rank` and `public` (default false) may be left out, and so may a
/// field's `search` (default false) and `from`; `fields` may not. Unknown keys are errors
/// (a misspelt `"serach"` would otherwise silently not search).
extension CollectionSchema {
    /// The schema in `json`, validated (`validate(limits:)`).
    public static func decode(json: some Collection<UInt8>, limits: SchemaLimits = .default) throws(SchemaError) -> CollectionSchema {
        guard json.count <= limits.maxBodyBytes else {
            throw SchemaError("", "the schema is \(json.count) bytes long; the limit is \(limits.maxBodyBytes)")
        }
        let root = try parse(Array(json))
        guard case .object(let members) = root else {
            throw SchemaError("", "the schema must be a JSON object, not \(describe(root))")
        }
        let top = try Members(members, path: "", allowed: ["id", "fields", "rank", "public"])
        var schema = CollectionSchema(fields: [])
        if let id = top["id"] { schema.idField = try string(id, path: "id") }
        guard let fieldsValue = top["fields"] else { throw SchemaError("fields", "is missing: declare the fields, even as []") }
        guard case .array(let items) = fieldsValue else {
            throw SchemaError("fields", "must be an array of fields, not \(describe(fieldsValue))")
        }
        guard items.count <= limits.maxFields else {
            throw SchemaError("fields", "\(items.count) fields are declared; the limit is \(limits.maxFields)")
        }
        for (index, item) in items.enumerated() {
            schema.fields.append(try field(item, path: "fields[\(index)]"))
        }
        if let rank = top["rank"] {
            if case .null = rank {} else { schema.rank = try string(rank, path: "rank") }
        }
        if let isPublic = top["public"] { schema.isPublic = try boolean(isPublic, path: "public") }
        try schema.validate(limits: limits)
        return schema
    }

    /// The schema as JSON, in the shape `decode(json:)` reads: every key written but a field's
    /// `search` when false, its `from` when absent, and `rank` when there is none.
    public func encodedJSON() -> [UInt8] {
        var output: [UInt8] = []
        JSONOutput.appendLiteral("{\"id\":", to: &output)
        JSONOutput.appendString(idField, to: &output)
        JSONOutput.appendLiteral(",\"fields\":[", to: &output)
        for (index, field) in fields.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            JSONOutput.appendLiteral("{\"name\":", to: &output)
            JSONOutput.appendString(field.name, to: &output)
            JSONOutput.appendLiteral(",\"type\":", to: &output)
            JSONOutput.appendString(field.type.rawValue, to: &output)
            if field.search { JSONOutput.appendLiteral(",\"search\":true", to: &output) }
            if let from = field.from {
                JSONOutput.appendLiteral(",\"from\":[", to: &output)
                JSONOutput.appendString(from.latitude, to: &output)
                output.append(UInt8(ascii: ","))
                JSONOutput.appendString(from.longitude, to: &output)
                output.append(UInt8(ascii: "]"))
            }
            output.append(UInt8(ascii: "}"))
        }
        output.append(UInt8(ascii: "]"))
        if let rank {
            JSONOutput.appendLiteral(",\"rank\":", to: &output)
            JSONOutput.appendString(rank, to: &output)
        }
        if isPublic {
            JSONOutput.appendLiteral(",\"public\":true}", to: &output)
        } else {
            JSONOutput.appendLiteral(",\"public\":false}", to: &output)
        }
        return output
    }

    private static func parse(_ bytes: [UInt8]) throws(SchemaError) -> JSONScanner.Value {
        let result: Result<JSONScanner.Value, JSONScanner.Failure> = bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            do throws(JSONScanner.Failure) {
                let value = try scanner.readValue()
                scanner.skipSpace()
                guard scanner.position == buffer.count else { throw scanner.fail("unexpected text after the JSON value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let failure): throw SchemaError("", "not JSON: \(failure.reason) at byte \(failure.position)")
        }
    }

    private static func field(_ value: JSONScanner.Value, path: String) throws(SchemaError) -> FieldSchema {
        guard case .object(let pairs) = value else {
            throw SchemaError(path, "a field must be an object like {\"name\": \"title\", \"type\": \"string\"}, not \(describe(value))")
        }
        let members = try Members(pairs, path: path, allowed: ["name", "type", "search", "from"])
        guard let name = members["name"] else { throw SchemaError("\(path).name", "is missing") }
        guard let type = members["type"] else { throw SchemaError("\(path).type", "is missing") }
        let typeName = try string(type, path: "\(path).type")
        guard let fieldType = FieldType(rawValue: typeName) else {
            throw SchemaError("\(path).type", "unknown type '\(typeName.prefix(80))' (expected string, string[], number, boolean or geo)")
        }
        var field = FieldSchema(name: try string(name, path: "\(path).name"), type: fieldType)
        if let search = members["search"] { field.search = try boolean(search, path: "\(path).search") }
        if let from = members["from"] {
            guard case .array(let names) = from, names.count == 2 else {
                throw SchemaError("\(path).from", "must be two field names, latitude first, like [\"lat\", \"lon\"]")
            }
            field.from = GeoSource(
                latitude: try string(names[0], path: "\(path).from[0]"), longitude: try string(names[1], path: "\(path).from[1]"))
        }
        return field
    }

    private static func string(_ value: JSONScanner.Value, path: String) throws(SchemaError) -> String {
        guard case .string(let text) = value else { throw SchemaError(path, "must be a string, not \(describe(value))") }
        return text
    }

    private static func boolean(_ value: JSONScanner.Value, path: String) throws(SchemaError) -> Bool {
        guard case .bool(let flag) = value else { throw SchemaError(path, "must be true or false, not \(describe(value))") }
        return flag
    }

    private static func describe(_ value: JSONScanner.Value) -> String {
        switch value {
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// An object's members by key, each key once and known.
    private struct Members {
        private var values: [String: JSONScanner.Value] = [:]

        init(_ pairs: [(key: String, value: JSONScanner.Value)], path: String, allowed: [String]) throws(SchemaError) {
            for (key, value) in pairs {
                let keyPath = path.isEmpty ? key : "\(path).\(key)"
                guard allowed.contains(key) else {
                    throw SchemaError(
                        path, "unknown key '\(key.prefix(80))' (expected \(allowed.joined(separator: ", ")))")
                }
                guard values.updateValue(value, forKey: key) == nil else { throw SchemaError(keyPath, "is given twice") }
            }
        }

        subscript(key: String) -> JSONScanner.Value? { values[key] }
    }
}
