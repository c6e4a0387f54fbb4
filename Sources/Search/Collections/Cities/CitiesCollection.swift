/// The built-in cities as a collection: the schema of `cities` and the conversion of a city
/// `Document`, so that `/collections/cities/search` (filters, facets, geo) is served by a
/// `CollectionIndex` over the same documents `/search` uses (which keeps the tuned `SearchIndex`).
public enum CitiesCollection {
    /// The collection's name.
    public static let name = "cities"

    /// Id `id`; `name` and `alternateNames` searched (name weighs more); country, admin code and
    /// time zone for filters and facets; `population` ranks; `location` from `latitude`/`longitude`.
    public static let schema = CollectionSchema(
        idField: "id",
        fields: [
            FieldSchema(name: "name", type: .string, search: true),
            FieldSchema(name: "alternateNames", type: .stringArray, search: true),
            FieldSchema(name: "countryCode", type: .string),
            FieldSchema(name: "admin1Code", type: .string),
            FieldSchema(name: "timezone", type: .string),
            FieldSchema(name: "population", type: .number),
            FieldSchema(name: "location", type: .geo, from: GeoSource(latitude: "latitude", longitude: "longitude")),
        ],
        rank: "population",
        isPublic: true)

    /// `city` in the collection's shape: body `{"id","name","alternateNames","countryCode",
    /// "admin1Code","timezone","population","latitude","longitude"}` (attributes a city lacks
    /// are left out; the rank is the population).
    public static func document(_ city: Document) -> CollectionDocument {
        var writer = JSONBodyWriter()
        writer.field("id", city.id)
        writer.field("name", city.name)
        writer.field("alternateNames", city.alternateNames)
        var values: [FieldValue?] = [.string(city.name), .strings(city.alternateNames), nil, nil, nil, .number(city.rank), nil]
        for (slot, key) in [(2, Document.AttributeKey.countryCode), (3, Document.AttributeKey.admin1Code), (4, Document.AttributeKey.timezone)] {
            if let text = city.attributes[key]?.stringValue {
                writer.field(key, text)
                values[slot] = .string(text)
            }
        }
        writer.field("population", city.rank)
        let latitude = city.attributes[Document.AttributeKey.latitude]?.doubleValue
        let longitude = city.attributes[Document.AttributeKey.longitude]?.doubleValue
        if let latitude { writer.field(Document.AttributeKey.latitude, latitude) }
        if let longitude { writer.field(Document.AttributeKey.longitude, longitude) }
        if let latitude, let longitude {
            let point = GeoPoint(latitude: latitude, longitude: longitude)
            if point.isValid { values[6] = .geo(point) }
        }
        return CollectionDocument(id: city.id, values: values, body: writer.finish())
    }

    /// A collection index of `cities`, current at the store's `sequence`.
    public static func index(_ cities: [Document], sequence: Int64 = 0) -> CollectionIndex {
        CollectionIndex(schema: schema, documents: cities.map(document), sequence: sequence, configuration: configuration)
    }

    /// The cities take one write at a time (a `PUT` each), not an import's batches: each write
    /// decodes and re-indexes the recent segment, so it is kept at 32 documents instead of 1,024
    /// (callgrind, one `PUT`: 128 cost 1.5 M instructions here, most of a `PUT`). A document is then
    /// merged a few times more on its way to the large segments (×4 per level), far less in all.
    public static let configuration: CollectionIndex.Configuration = {
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 32
        return configuration
    }()
}
