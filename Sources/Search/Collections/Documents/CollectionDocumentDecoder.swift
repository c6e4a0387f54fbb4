import Foundation

/// Decodes collection documents against one schema; build it once and reuse it for many
/// documents (an import of a million goes through it; `CollectionDocument.decode` builds one per
/// call). Reads the bytes with `JSONScanner`: declared fields are converted, undeclared ones
/// only checked and skipped.
public struct CollectionDocumentDecoder: Sendable {
    /// What a top-level key of a document is to the schema, as it is worked out.
    private struct KeyRoleDraft {
        var name: String
        var isId = false
        var field: Int?
        var type: FieldType?
        var latitudeOf: [Int] = []
        var longitudeOf: [Int] = []
    }

    /// What a top-level key of a document is to the schema. An object: each key of each document
    /// reads its role, and a copy of a struct of a string and two arrays cost three retains and
    /// releases a key (a tenth of an import's decoding).
    private final class KeyRole: Sendable {
        let name: String
        /// `name`'s UTF-8, matched against a key's bytes (no string made for each key of each document).
        var nameBytes: [UInt8] { Array(name.utf8) }
        let isId: Bool
        let field: Int?
        /// The type of `field`, read per value without copying the field's schema (its strings).
        let type: FieldType?
        /// Geo fields built from this key (`from`), as their latitude or longitude.
        let latitudeOf: [Int]
        let longitudeOf: [Int]
        /// Whether the value is only checked and skipped (no field is made of it).
        let isSkipped: Bool

        init(_ draft: KeyRoleDraft) {
            name = draft.name
            isId = draft.isId
            field = draft.field
            type = draft.type
            latitudeOf = draft.latitudeOf
            longitudeOf = draft.longitudeOf
            isSkipped = !draft.isId && draft.field == nil && draft.latitudeOf.isEmpty && draft.longitudeOf.isEmpty
        }
    }

    public let schema: CollectionSchema
    public let limits: CollectionDocumentLimits
    private let roles: [KeyRole]
    /// Each role's name as UTF-8 (``KeyRole/nameBytes``), in the order of `roles`.
    private let roleNames: [[UInt8]]
    /// Each role's name's length and first eight bytes packed (``head(_:)``): a key is told from
    /// the other names by two integers, its bytes compared only past the eighth.
    private let roleHeads: [(count: Int, head: UInt64)]
    /// The geo fields built from two other fields (`from`): only with one does a document need
    /// room for their halves (two arrays a document otherwise, a million in an import).
    private let fromFields: [Int]

    public init(schema: CollectionSchema, limits: CollectionDocumentLimits = .default) {
        self.schema = schema
        self.limits = limits
        var roles: [KeyRoleDraft] = []
        func role(_ name: String) -> Int {
            if let index = roles.firstIndex(where: { $0.name == name }) { return index }
            roles.append(KeyRoleDraft(name: name))
            return roles.count - 1
        }
        roles[role(schema.idField)].isId = true
        for (index, field) in schema.fields.enumerated() {
            if let from = field.from, field.type == .geo {
                roles[role(from.latitude)].latitudeOf.append(index)
                roles[role(from.longitude)].longitudeOf.append(index)
            } else {
                roles[role(field.name)].field = index
                roles[role(field.name)].type = field.type
            }
        }
        self.roles = roles.map(KeyRole.init)
        roleNames = self.roles.map(\.nameBytes)
        roleHeads = roleNames.map { name in name.withUnsafeBufferPointer { (name.count, Self.head($0)) } }
        fromFields = schema.fields.indices.filter { schema.fields[$0].type == .geo && schema.fields[$0].from != nil }
    }

    /// `CollectionDocument.decode(json:schema:limits:)` with this decoder's schema and limits.
    public func decode(_ json: [UInt8]) throws(DocumentError) -> CollectionDocument {
        var start = 0, end = json.count
        while start < end, Self.isSpace(json[start]) { start += 1 }
        while end > start, Self.isSpace(json[end - 1]) { end -= 1 }
        if end - start > limits.maxBodyBytes { throw .bodyTooLarge(bytes: end - start, limit: limits.maxBodyBytes) }
        let result: Result<(String, [FieldValue?]), DocumentError> = json.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(UnsafeBufferPointer(rebasing: buffer[start..<end]))
            do throws(DocumentError) {
                return .success(try read(&scanner))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let (id, values)):
            let body = start == 0 && end == json.count ? json : Array(json[start..<end])
            return CollectionDocument(id: id, values: values, body: body)
        case .failure(let error): throw error
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Runs a scanner step, its failure reported as invalid JSON.
    @inline(__always)
    private func scan<T>(_ body: () throws(JSONScanner.Failure) -> T) throws(DocumentError) -> T {
        do throws(JSONScanner.Failure) {
            return try body()
        } catch {
            throw .invalidJSON(position: error.position, reason: error.reason)
        }
    }

    private func read(_ scanner: inout JSONScanner) throws(DocumentError) -> (String, [FieldValue?]) {
        var id: String?
        var values = [FieldValue?](repeating: nil, count: schema.fields.count)
        var latitudes = fromFields.isEmpty ? [] : [Double?](repeating: nil, count: schema.fields.count)
        var longitudes = fromFields.isEmpty ? [] : [Double?](repeating: nil, count: schema.fields.count)
        // The keys read so far: a bit each for the first 64 (no array a document), then an array.
        var seenBits: UInt64 = 0
        var seenMore = [Bool](repeating: false, count: max(0, roles.count - 64))
        guard try scan({ () throws(JSONScanner.Failure) in scanner.peek() }) == UInt8(ascii: "{") else {
            throw .invalidJSON(position: 0, reason: "a document must be a JSON object")
        }
        // A schema error ends the reading at once: the callback stops the scanner with a
        // failure and the error itself is kept here.
        var failure: DocumentError?
        do throws(JSONScanner.Failure) {
            try scanner.readObjectKeys { scanner, key throws(JSONScanner.Failure) in
                guard let index = roleIndex(of: key) else { return try scanner.skipValue() }
                do throws(DocumentError) {
                    if index < 64 {
                        let bit = UInt64(1) << UInt64(index)
                        if seenBits & bit != 0 { throw .duplicateField(key.text) }
                        seenBits |= bit
                    } else {
                        if seenMore[index - 64] { throw .duplicateField(key.text) }
                        seenMore[index - 64] = true
                    }
                    try readRole(roles[index], &scanner, id: &id, values: &values, latitudes: &latitudes, longitudes: &longitudes)
                } catch {
                    failure = error
                    throw scanner.fail("")
                }
            }
            guard scanner.isAtEnd() else { throw scanner.fail("unexpected data after the object") }
        } catch {
            throw failure ?? .invalidJSON(position: error.position, reason: error.reason)
        }
        guard let id else { throw .missingId(field: schema.idField) }
        for index in fromFields {
            let field = schema.fields[index]
            guard let from = field.from else { continue }
            switch (latitudes[index], longitudes[index]) {
            case (nil, nil): break
            case (let latitude?, let longitude?): values[index] = .geo(try Self.point(latitude, longitude, field: field.name))
            default: throw .invalidGeo(field: field.name, reason: "needs both '\(from.latitude)' and '\(from.longitude)'")
            }
        }
        return (id, values)
    }

    /// The role of a document's key, if the schema names it.
    private func roleIndex(of key: JSONScanner.Key) -> Int? {
        switch key {
        case .text(let text): return roles.firstIndex { $0.name == text }
        case .bytes(let bytes):
            let head = Self.head(bytes)
            for (index, role) in roleHeads.enumerated() where role.count == bytes.count && role.head == head {
                guard bytes.count > 8 else { return index }
                let rest = roleNames[index].withUnsafeBufferPointer { memcmp($0.baseAddress! + 8, bytes.baseAddress! + 8, bytes.count - 8) }
                if rest == 0 { return index }
            }
            return nil
        }
    }

    /// The first eight bytes of `bytes` (fewer: zero-padded) as one integer.
    private static func head(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var head: UInt64 = 0
        for i in 0..<min(bytes.count, 8) { head |= UInt64(bytes[i]) << UInt64(8 * i) }
        return head
    }

    /// Reads the value of a key the schema names.
    private func readRole(
        _ role: KeyRole, _ scanner: inout JSONScanner, id: inout String?, values: inout [FieldValue?],
        latitudes: inout [Double?], longitudes: inout [Double?]
    ) throws(DocumentError) {
        if role.isId {
            let text = try readId(&scanner)
            id = text
            if let field = role.field, let type = role.type {
                guard type == .string else { throw .wrongType(field: schema.fields[field].name, expected: type) }
                values[field] = .string(text)
            }
            return
        }
        if role.isSkipped {
            return try scan { () throws(JSONScanner.Failure) in try scanner.skipValue() }
        }
        // A string, the common case, read straight from the scanner (no scanner value first).
        if let field = role.field, role.type == .string, role.latitudeOf.isEmpty, role.longitudeOf.isEmpty,
            try scan({ () throws(JSONScanner.Failure) in scanner.peek() }) == UInt8(ascii: "\"")
        {
            let text = try scan { () throws(JSONScanner.Failure) in try scanner.readString() }
            try checkLength(text, field: field)
            values[field] = .string(text)
            return
        }
        // The field's schema is copied (its strings retained) only on the rare paths that need it.
        if let field = role.field, role.type == .geo {
            values[field] = try readGeo(schema.fields[field], &scanner)
            return
        }
        if let field = role.field, role.type == .stringArray, role.latitudeOf.isEmpty, role.longitudeOf.isEmpty,
            let strings = readStrings(&scanner)
        {
            values[field] = .strings(strings)
            return
        }
        let value = try scan { () throws(JSONScanner.Failure) in try scanner.readValue() }
        if let field = role.field, let type = role.type { values[field] = try convert(value, field: field, type: type) }
        guard !role.latitudeOf.isEmpty || !role.longitudeOf.isEmpty else { return }
        // A `from` half: a number, or a numeric string as CSV carries it.
        let number: Double?
        switch value {
        case .null: number = nil
        case .number(let n): number = n
        case .string(let s) where Double(s.trimmingSpaces) != nil: number = Double(s.trimmingSpaces)
        default:
            let geo = schema.fields[(role.latitudeOf + role.longitudeOf)[0]].name
            throw .invalidGeo(field: geo, reason: "'\(role.name)' is not a number")
        }
        for field in role.latitudeOf { latitudes[field] = number }
        for field in role.longitudeOf { longitudes[field] = number }
    }

    private func readId(_ scanner: inout JSONScanner) throws(DocumentError) -> String {
        let field = schema.idField
        let first = try scan { () throws(JSONScanner.Failure) in scanner.peek() } ?? 0
        let text: String
        switch first {
        case UInt8(ascii: "\""):
            text = try scan { () throws(JSONScanner.Failure) in try scanner.readString() }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let range = try scan { () throws(JSONScanner.Failure) in try scanner.readNumberText().text }
            let digits = scanner.bytes(in: range)
            let magnitude = digits.first == UInt8(ascii: "-") ? digits.dropFirst() : digits[...]
            guard !magnitude.isEmpty, magnitude.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                throw .invalidId(field: field, reason: "must be a string or an integer, not a fraction")
            }
            text = String(decoding: digits, as: UTF8.self)
        default:
            throw .invalidId(field: field, reason: "must be a string or an integer")
        }
        if text.isEmpty { throw .invalidId(field: field, reason: "is empty") }
        if text.utf8.count > limits.maxIdBytes { throw .idTooLong(bytes: text.utf8.count, limit: limits.maxIdBytes) }
        if text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "/") }) {
            throw .invalidId(field: field, reason: "contains a control character or '/'")
        }
        return text
    }

    /// `value` as a value of the type of field number `index` (nil for null).
    private func convert(_ value: JSONScanner.Value, field index: Int, type: FieldType) throws(DocumentError) -> FieldValue? {
        var field: FieldSchema { schema.fields[index] }
        switch (type, value) {
        case (_, .null): return nil
        case (.string, .string(let text)):
            try checkLength(text, field: index)
            return .string(text)
        case (.stringArray, .array(let items)):
            if items.count > limits.maxArrayElements {
                throw .tooManyElements(field: field.name, count: items.count, limit: limits.maxArrayElements)
            }
            var strings: [String] = []
            strings.reserveCapacity(items.count)
            for item in items {
                guard case .string(let text) = item else { throw .wrongType(field: field.name, expected: field.type) }
                try checkLength(text, field: index)
                strings.append(text)
            }
            return .strings(strings)
        case (.number, .number(let number)):
            guard number.isFinite else { throw .nonFiniteNumber(field: field.name) }
            return .number(number)
        case (.boolean, .bool(let flag)): return .boolean(flag)
        default: throw .wrongType(field: field.name, expected: field.type)
        }
    }

    /// A `string[]` value read straight into strings, the common case (no array of scanner values
    /// first); nil, with `scanner` unmoved, for anything else (null, a wrong element, too many or
    /// too long ones, bad JSON), which the general path reads and reports as before.
    private func readStrings(_ scanner: inout JSONScanner) -> [String]? {
        var attempt = scanner
        guard attempt.peek() == UInt8(ascii: "["), (try? attempt.expect(UInt8(ascii: "["))) != nil else { return nil }
        var strings: [String] = []
        if attempt.peek() == UInt8(ascii: "]") {
            attempt.skip()
            scanner = attempt
            return strings
        }
        while true {
            guard strings.count < limits.maxArrayElements, attempt.peek() == UInt8(ascii: "\""),
                let text = try? attempt.readString(), text.utf8.count <= limits.maxStringBytes
            else { return nil }
            strings.append(text)
            switch attempt.peek() {
            case UInt8(ascii: ","): attempt.skip()
            case UInt8(ascii: "]"):
                attempt.skip()
                scanner = attempt
                return strings
            default: return nil
            }
        }
    }

    private func checkLength(_ text: String, field index: Int) throws(DocumentError) {
        let bytes = text.utf8.count
        if bytes > limits.maxStringBytes { throw .stringTooLong(field: schema.fields[index].name, bytes: bytes, limit: limits.maxStringBytes) }
    }

    /// `{"lat": number, "lng": number}` or null.
    private func readGeo(_ field: FieldSchema, _ scanner: inout JSONScanner) throws(DocumentError) -> FieldValue? {
        let value = try scan { () throws(JSONScanner.Failure) in try scanner.readValue() }
        if case .null = value { return nil }
        guard case .object(let members) = value else { throw .wrongType(field: field.name, expected: .geo) }
        var latitude: Double?, longitude: Double?
        for (key, member) in members {
            guard case .number(let number) = member, key == "lat" || key == "lng" else {
                throw .invalidGeo(field: field.name, reason: #"expected {"lat": number, "lng": number}"#)
            }
            if key == "lat" { latitude = number } else { longitude = number }
        }
        guard let latitude, let longitude else {
            throw .invalidGeo(field: field.name, reason: #"expected {"lat": number, "lng": number}"#)
        }
        return .geo(try Self.point(latitude, longitude, field: field.name))
    }

    static func point(_ latitude: Double, _ longitude: Double, field: String) throws(DocumentError) -> GeoPoint {
        guard latitude.isFinite, abs(latitude) <= 90 else { throw .latitudeOutOfRange(field: field, latitude) }
        guard longitude.isFinite, abs(longitude) <= 180 else { throw .longitudeOutOfRange(field: field, longitude) }
        return GeoPoint(latitude: latitude, longitude: longitude)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (a CSV cell " 48.85 ").
    fileprivate var trimmingSpaces: Substring {
        var result = self[...]
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
