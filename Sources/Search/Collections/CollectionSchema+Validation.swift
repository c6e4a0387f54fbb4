extension CollectionSchema {
    /// Throws the first reason the schema cannot be used: a bad name, a field declared twice, a
    /// type that cannot do what is asked of it (`search` on a non-string field, `from` on a
    /// non-geo field), an id field declared as other than a string, a `rank` that is not a
    /// declared number field, more fields than `limits.maxFields`. `decode(json:)` calls it;
    /// a schema built in code (the built-in `cities`) can too.
    public func validate(limits: SchemaLimits = .default) throws(SchemaError) {
        if let problem = Self.fieldNameProblem(idField) { throw SchemaError("id", problem) }
        guard fields.count <= limits.maxFields else {
            throw SchemaError("fields", "\(fields.count) fields are declared; the limit is \(limits.maxFields)")
        }
        var firstIndex: [String: Int] = [:]
        for (index, field) in fields.enumerated() {
            let path = "fields[\(index)]"
            if let problem = Self.fieldNameProblem(field.name) { throw SchemaError("\(path).name", problem) }
            if let earlier = firstIndex[field.name] {
                throw SchemaError("\(path).name", "'\(field.name)' is declared twice (also fields[\(earlier)])")
            }
            firstIndex[field.name] = index
            if field.name == idField, field.type != .string {
                throw SchemaError("\(path).type", "'\(field.name)' is the id field, which holds a string: declare it as string, not \(field.type.rawValue)")
            }
            if field.search, field.type != .string, field.type != .stringArray {
                throw SchemaError("\(path).search", "only string and string[] fields can be searched, and '\(field.name)' is \(field.type.rawValue)")
            }
            if let from = field.from {
                try validate(from, of: field, path: "\(path).from")
            }
        }
        if let rank {
            guard let field = field(named: rank) else {
                throw SchemaError("rank", "'\(rank.prefix(80))' is not a declared field")
            }
            guard field.type == .number else {
                throw SchemaError("rank", "the rank must be a number field, and '\(rank)' is \(field.type.rawValue)")
            }
        }
    }

    /// The two source fields of a geo field: valid, distinct, and numbers if declared.
    private func validate(_ from: GeoSource, of field: FieldSchema, path: String) throws(SchemaError) {
        guard field.type == .geo else {
            throw SchemaError(path, "only a geo field is built from other fields, and '\(field.name)' is \(field.type.rawValue)")
        }
        for (index, name) in [from.latitude, from.longitude].enumerated() {
            if let problem = Self.fieldNameProblem(name) { throw SchemaError("\(path)[\(index)]", problem) }
            if name == field.name || name == idField {
                throw SchemaError("\(path)[\(index)]", "'\(name)' cannot be a coordinate of the geo field '\(field.name)'")
            }
            if let source = self.field(named: name), source.type != .number {
                throw SchemaError("\(path)[\(index)]", "'\(name)' is declared as \(source.type.rawValue); a coordinate is a number")
            }
        }
        guard from.latitude != from.longitude else {
            throw SchemaError(path, "the latitude and the longitude are both '\(from.latitude)'")
        }
    }
}
