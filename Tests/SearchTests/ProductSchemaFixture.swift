@testable import Search

/// The schema of the example collection, for the parser tests.
enum Products {
    static let schema = CollectionSchema(
        idField: "sku",
        fields: [
            FieldSchema(name: "title", type: .string, search: true),
            FieldSchema(name: "tags", type: .stringArray),
            FieldSchema(name: "price", type: .number),
            FieldSchema(name: "inStock", type: .boolean),
            FieldSchema(name: "brand", type: .string),
            FieldSchema(name: "store", type: .geo, from: GeoSource(latitude: "lat", longitude: "lon")),
        ],
        rank: "price")

    /// The same without its geo field.
    static let schemaWithoutGeo = CollectionSchema(
        idField: "sku", fields: schema.fields.filter { $0.type != .geo }, rank: "price")
}
