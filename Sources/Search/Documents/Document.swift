/// A searchable document: a city in the default data set.
///
/// JSON shape (the service's document body):
/// `{"id": "2950159", "name": "Berlin", "alternateNames": ["Berlín", ...], "rank": 3426354,
///   "attributes": {"countryCode": "DE", "admin1Code": "16", "timezone": "Europe/Berlin",
///   "latitude": 52.52437, "longitude": 13.41053}}`
public struct Document: Codable, Sendable, Equatable, Hashable {
    /// Attribute names the city documents carry.
    public enum AttributeKey {
        /// ISO 3166-1 alpha-2 country code, uppercase; the `countries` filter reads it.
        public static let countryCode = "countryCode"
        public static let admin1Code = "admin1Code"
        public static let timezone = "timezone"
        public static let latitude = "latitude"
        public static let longitude = "longitude"
    }

    /// Unique identifier (GeoNames ids as decimal strings).
    public var id: String
    /// The display name; highlight ranges refer to it.
    public var name: String
    /// Other names the document is found by (translations, transliterations, former names).
    public var alternateNames: [String]
    /// Rank weight: higher first among documents matched as well, weighed against how the query
    /// matched (`RankingRules`; population for cities).
    public var rank: Double
    /// Free attributes returned with hits; `countryCode` is used by the country filter.
    public var attributes: [String: AttributeValue]

    public init(
        id: String, name: String, alternateNames: [String] = [], rank: Double = 0,
        attributes: [String: AttributeValue] = [:]
    ) {
        self.id = id
        self.name = name
        self.alternateNames = alternateNames
        self.rank = rank
        self.attributes = attributes
    }

    /// The uppercase country code attribute, if any.
    public var countryCode: String? { attributes[AttributeKey.countryCode]?.stringValue }

    private enum CodingKeys: String, CodingKey {
        case id, name, alternateNames, rank, attributes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        alternateNames = try container.decodeIfPresent([String].self, forKey: .alternateNames) ?? []
        rank = try container.decodeIfPresent(Double.self, forKey: .rank) ?? 0
        attributes = try container.decodeIfPresent([String: AttributeValue].self, forKey: .attributes) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(alternateNames, forKey: .alternateNames)
        try container.encodeRank(rank, forKey: .rank)
        try container.encode(attributes, forKey: .attributes)
    }
}

extension KeyedEncodingContainer {
    /// Encodes a rank as JSON: whole ranks (populations) without a fraction, 3426354 rather
    /// than 3426354.0, so every body that shows a rank writes it alike.
    public mutating func encodeRank(_ rank: Double, forKey key: Key) throws {
        if let whole = Document.wholeRank(rank) {
            try encode(whole, forKey: key)
        } else {
            try encode(rank, forKey: key)
        }
    }
}

extension Document {
    /// `rank` as an integer when it is whole and exactly representable, the form JSON bodies show.
    public static func wholeRank(_ rank: Double) -> Int64? {
        rank == rank.rounded() && abs(rank) < 9.0e15 ? Int64(rank) : nil
    }
}
