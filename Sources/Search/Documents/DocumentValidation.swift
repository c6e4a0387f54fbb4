/// Limits a document must respect to be indexed; the service maps a violation to 422.
public struct DocumentLimits: Sendable, Hashable {
    /// Longest id, in UTF-8 bytes. Default 128.
    public var maxIdBytes: Int = 128
    /// Longest name or alternate name, in UTF-8 bytes. Default 512.
    public var maxNameBytes: Int = 512
    /// Most alternate names. Default 1,000 (the largest GeoNames city has about 400).
    public var maxAlternateNames: Int = 1_000
    /// Most attributes. Default 64.
    public var maxAttributes: Int = 64
    /// Longest attribute key or string value, in UTF-8 bytes. Default 1,024.
    public var maxAttributeBytes: Int = 1_024

    public init() {}

    /// The defaults above.
    public static let `default` = DocumentLimits()
}

/// Why a document cannot be indexed. `description` is a sentence fit for a problem body.
public enum DocumentValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    case emptyId
    case idTooLong(bytes: Int, limit: Int)
    case idHasControlCharacters
    case emptyName
    case nameTooLong(bytes: Int, limit: Int)
    case tooManyAlternateNames(count: Int, limit: Int)
    case alternateNameTooLong(index: Int, bytes: Int, limit: Int)
    case nonFiniteRank
    case tooManyAttributes(count: Int, limit: Int)
    case attributeTooLong(key: String, limit: Int)
    case nonFiniteAttribute(key: String)
    case invalidCountryCode(String)

    public var description: String {
        switch self {
        case .emptyId: return "the id is empty"
        case .idTooLong(let bytes, let limit): return "the id is \(bytes) bytes long; the limit is \(limit)"
        case .idHasControlCharacters: return "the id contains control characters or '/'"
        case .emptyName: return "the name is empty or has no letters or digits"
        case .nameTooLong(let bytes, let limit): return "the name is \(bytes) bytes long; the limit is \(limit)"
        case .tooManyAlternateNames(let count, let limit):
            return "there are \(count) alternate names; the limit is \(limit)"
        case .alternateNameTooLong(let index, let bytes, let limit):
            return "alternate name \(index) is \(bytes) bytes long; the limit is \(limit)"
        case .nonFiniteRank: return "the rank is not a finite number"
        case .tooManyAttributes(let count, let limit): return "there are \(count) attributes; the limit is \(limit)"
        case .attributeTooLong(let key, let limit):
            return "attribute '\(key.prefix(64))' has a key or value longer than \(limit) bytes"
        case .nonFiniteAttribute(let key): return "attribute '\(key.prefix(64))' is not a finite number"
        case .invalidCountryCode(let code):
            return "countryCode '\(code.prefix(16))' is not two uppercase letters A-Z"
        }
    }
}

extension Document {
    /// Checks the document against `limits`; throws the first problem found.
    public func validate(limits: DocumentLimits = .default) throws(DocumentValidationError) {
        if id.isEmpty { throw .emptyId }
        if id.utf8.count > limits.maxIdBytes { throw .idTooLong(bytes: id.utf8.count, limit: limits.maxIdBytes) }
        if id.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "/" }) {
            throw .idHasControlCharacters
        }
        if name.utf8.count > limits.maxNameBytes {
            throw .nameTooLong(bytes: name.utf8.count, limit: limits.maxNameBytes)
        }
        // An ASCII letter or digit is a word: only other names are tokenized to tell (that cost
        // about 20,000 instructions a write).
        let hasASCIIWord = name.utf8.contains { byte in (0x61...0x7A).contains(byte | 0x20) || (0x30...0x39).contains(byte) }
        if !hasASCIIWord, Normalizer.tokenize(name).isEmpty { throw .emptyName }
        if alternateNames.count > limits.maxAlternateNames {
            throw .tooManyAlternateNames(count: alternateNames.count, limit: limits.maxAlternateNames)
        }
        for (index, alternate) in alternateNames.enumerated() where alternate.utf8.count > limits.maxNameBytes {
            throw .alternateNameTooLong(index: index, bytes: alternate.utf8.count, limit: limits.maxNameBytes)
        }
        if !rank.isFinite { throw .nonFiniteRank }
        if attributes.count > limits.maxAttributes {
            throw .tooManyAttributes(count: attributes.count, limit: limits.maxAttributes)
        }
        for (key, value) in attributes {
            if key.utf8.count > limits.maxAttributeBytes || (value.stringValue?.utf8.count ?? 0) > limits.maxAttributeBytes {
                throw .attributeTooLong(key: key, limit: limits.maxAttributeBytes)
            }
            if case .double(let number) = value, !number.isFinite { throw .nonFiniteAttribute(key: key) }
        }
        if let code = attributes[AttributeKey.countryCode] {
            guard let text = code.stringValue, text.utf8.count == 2,
                text.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
            else {
                let shown: String
                switch code {
                case .string(let s): shown = s
                case .int(let n): shown = String(n)
                case .double(let n): shown = String(n)
                case .bool(let b): shown = String(b)
                }
                throw .invalidCountryCode(shown)
            }
        }
    }
}
