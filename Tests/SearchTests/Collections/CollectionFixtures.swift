@testable import Search

/// Schemas and documents shared by the collection tests.
enum CollectionFixtures {
    static let products = CollectionSchema(
        idField: "sku",
        fields: [
            FieldSchema(name: "title", type: .string, search: true),
            FieldSchema(name: "tags", type: .stringArray, search: true),
            FieldSchema(name: "description", type: .string, search: true),
            FieldSchema(name: "brand", type: .string),
            FieldSchema(name: "price", type: .number),
            FieldSchema(name: "inStock", type: .boolean),
            FieldSchema(name: "store", type: .geo),
        ],
        rank: "price")

    static func decode(_ json: String, schema: CollectionSchema = products) throws -> CollectionDocument {
        try CollectionDocument.decode(json: Array(json.utf8), schema: schema)
    }

    /// A product document from its parts (nil values left out).
    static func product(
        _ sku: String, title: String? = nil, tags: [String]? = nil, description: String? = nil, brand: String? = nil,
        price: Double? = nil, inStock: Bool? = nil, store: (Double, Double)? = nil
    ) -> CollectionDocument {
        var members = [#""sku":"\#(sku)""#]
        if let title { members.append(#""title":"\#(title)""#) }
        if let tags { members.append(#""tags":[\#(tags.map { "\"\($0)\"" }.joined(separator: ","))]"#) }
        if let description { members.append(#""description":"\#(description)""#) }
        if let brand { members.append(#""brand":"\#(brand)""#) }
        if let price { members.append(#""price":\#(price)"#) }
        if let inStock { members.append(#""inStock":\#(inStock)"#) }
        if let store { members.append(#""store":{"lat":\#(store.0),"lng":\#(store.1)}"#) }
        return try! decode("{" + members.joined(separator: ",") + "}")
    }

    static func ids(_ result: CollectionSearchResult) -> [String] { result.hits.map(\.id) }

    /// An index of ``products`` holding `documents`.
    static func index(_ documents: CollectionDocument...) -> CollectionIndex {
        CollectionIndex(schema: products, documents: documents)
    }

    /// The first `limit` hits of a text search of `index`.
    static func search(_ index: CollectionIndex, _ text: String, limit: Int = 10) -> CollectionSearchResult {
        index.search(CollectionQuery(text: text, limit: limit))
    }
}
