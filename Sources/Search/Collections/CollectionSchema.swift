/// What a collection's documents look like: where each one's id is, the typed fields that are
/// indexed (searched, filtered, faceted, sorted), and the field that ranks them last.
///
/// JSON shape (`PUT /collections/{name}`):
/// `{"id": "sku", "fields": [{"name": "title", "type": "string", "search": true}, ...], "rank": "price"}`.
/// Undeclared fields are stored and returned with a document but not indexed.
public struct CollectionSchema: Sendable, Hashable {
    /// The field holding each document's id (a string or an integer); default `"id"`.
    public var idField: String
    /// Declared fields; the searched ones weigh in this order (an earlier field weighs more).
    public var fields: [FieldSchema]
    /// A `number` field: higher first, the last tie-break of the ranking.
    public var rank: String?
    /// Searched and read without a key (the built-in `cities` is public).
    public var isPublic: Bool

    public init(idField: String = "id", fields: [FieldSchema], rank: String? = nil, isPublic: Bool = false) {
        self.idField = idField
        self.fields = fields
        self.rank = rank
        self.isPublic = isPublic
    }

    /// The declared field named `name`.
    public func field(named name: String) -> FieldSchema? {
        fields.first { $0.name == name }
    }

    /// The searched fields, in weight order (heaviest first).
    public var searchedFields: [FieldSchema] { fields.filter(\.search) }
}

/// One declared field of a collection.
public struct FieldSchema: Sendable, Hashable {
    public var name: String
    public var type: FieldType
    /// Full-text searched (only `string` and `string[]` fields).
    public var search: Bool
    /// For a `geo` field built from two fields of each document: their names, latitude first.
    public var from: GeoSource?

    public init(name: String, type: FieldType, search: Bool = false, from: GeoSource? = nil) {
        self.name = name
        self.type = type
        self.search = search
        self.from = from
    }
}

/// The two fields a `geo` value is built from.
public struct GeoSource: Sendable, Hashable {
    public var latitude: String
    public var longitude: String

    public init(latitude: String, longitude: String) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A declared field's type.
public enum FieldType: String, Sendable, Hashable, CaseIterable {
    case string
    case stringArray = "string[]"
    case number
    case boolean
    case geo
}

/// A point on the earth, in degrees.
public struct GeoPoint: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether both coordinates are finite and within ±90 (latitude) and ±180 (longitude).
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }
}

/// A declared field's value in one document, converted to the field's type.
public enum FieldValue: Sendable, Hashable {
    case string(String)
    case strings([String])
    case number(Double)
    case boolean(Bool)
    case geo(GeoPoint)
}
