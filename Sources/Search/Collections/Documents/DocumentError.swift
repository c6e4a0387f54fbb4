/// Why a collection document was refused; `description` is a sentence fit for a problem body.
public enum DocumentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not JSON, or not one JSON object. `position` is a byte offset in the body.
    case invalidJSON(position: Int, reason: String)
    case bodyTooLarge(bytes: Int, limit: Int)
    case missingId(field: String)
    /// The id is not a non-empty string or an integer, or holds a control character or '/'.
    case invalidId(field: String, reason: String)
    case idTooLong(bytes: Int, limit: Int)
    /// A declared field appears twice in the object.
    case duplicateField(String)
    case wrongType(field: String, expected: FieldType)
    case nonFiniteNumber(field: String)
    case stringTooLong(field: String, bytes: Int, limit: Int)
    case tooManyElements(field: String, count: Int, limit: Int)
    /// A geo value that is not `{"lat": number, "lng": number}`, or a `from` pair with one half
    /// missing or not numeric.
    case invalidGeo(field: String, reason: String)
    case latitudeOutOfRange(field: String, Double)
    case longitudeOutOfRange(field: String, Double)

    public var description: String {
        switch self {
        case .invalidJSON(let position, let reason): return "invalid JSON at byte \(position): \(reason)"
        case .bodyTooLarge(let bytes, let limit): return "the document is \(bytes) bytes long; the limit is \(limit)"
        case .missingId(let field): return "the id field '\(field)' is missing"
        case .invalidId(let field, let reason): return "the id field '\(field)' \(reason)"
        case .idTooLong(let bytes, let limit): return "the id is \(bytes) bytes long; the limit is \(limit)"
        case .duplicateField(let name): return "field '\(name.prefix(64))' appears twice"
        case .wrongType(let field, let expected):
            return "field '\(field)' must be \(Self.article(expected))"
        case .nonFiniteNumber(let field): return "field '\(field)' is not a finite number"
        case .stringTooLong(let field, let bytes, let limit):
            return "field '\(field)' has a string of \(bytes) bytes; the limit is \(limit)"
        case .tooManyElements(let field, let count, let limit):
            return "field '\(field)' has \(count) elements; the limit is \(limit)"
        case .invalidGeo(let field, let reason): return "field '\(field)': \(reason)"
        case .latitudeOutOfRange(let field, let value): return "field '\(field)': latitude \(value) is not within -90...90"
        case .longitudeOutOfRange(let field, let value): return "field '\(field)': longitude \(value) is not within -180...180"
        }
    }

    private static func article(_ type: FieldType) -> String {
        switch type {
        case .string: return "a string"
        case .stringArray: return "an array of strings"
        case .number: return "a number"
        case .boolean: return "true or false"
        case .geo: return #"a point {"lat": number, "lng": number}"#
        }
    }
}
