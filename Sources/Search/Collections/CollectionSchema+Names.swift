extension CollectionSchema {
    /// Whether `name` can name a collection: `[a-z0-9][a-z0-9_-]{0,63}` (it appears in URLs
    /// and file names as it is).
    public static func isValidCollectionName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= SchemaLimits.maxNameLength, isLowerAlphanumeric(first) else { return false }
        return bytes.allSatisfy { isLowerAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    /// Throws the reason `name` cannot name a collection.
    public static func checkCollectionName(_ name: String) throws(SchemaError) {
        guard !isValidCollectionName(name) else { return }
        throw SchemaError(
            "", "the collection name '\(name.prefix(80))' is not 1 to \(SchemaLimits.maxNameLength) characters a-z, 0-9, '_' or '-' starting with a letter or a digit")
    }

    /// Whether `name` can name a field: `[A-Za-z][A-Za-z0-9_.-]{0,63}`. Names starting with `_`
    /// are kept for the engine (`_geoRadius`, `_geoPoint`...).
    public static func isValidFieldName(_ name: String) -> Bool {
        fieldNameProblem(name) == nil
    }

    /// What is wrong with `name` as a field name, or nil.
    static func fieldNameProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        let shown = "'\(name.prefix(80))'"
        guard let first = bytes.first else { return "a field name is empty" }
        if first == UInt8(ascii: "_") { return "the field name \(shown) starts with '_', which is kept for the engine's own names" }
        guard bytes.count <= SchemaLimits.maxNameLength, isLetter(first),
            bytes.allSatisfy({ isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") })
        else {
            return "the field name \(shown) is not 1 to \(SchemaLimits.maxNameLength) characters A-Z, a-z, 0-9, '_', '.' or '-' starting with a letter"
        }
        return nil
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || isDigit(byte)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
