/// One document of a collection: its id, its declared values converted to their types, and its
/// JSON body as stored and returned (undeclared fields included).
///
/// An immutable class, equal by value: a document passes from the import's decoder to its batch,
/// the store's change, the index write and the event history, and a struct of three references
/// was retained three times at each of those copies.
public final class CollectionDocument: Sendable, Hashable {
    /// The value of the schema's id field: a string, or an integer's digits as written.
    public let id: String
    /// One slot per declared field (schema order); nil when the document has no value for it.
    public let values: [FieldValue?]
    /// The JSON object as given, without surrounding space.
    public let body: [UInt8]

    init(id: String, values: [FieldValue?], body: [UInt8]) {
        self.id = id
        self.values = values
        self.body = body
    }

    public static func == (a: CollectionDocument, b: CollectionDocument) -> Bool {
        a === b || (a.id == b.id && a.body == b.body && a.values == b.values)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(values)
        hasher.combine(body)
    }

    /// Reads and checks one JSON object against `schema`: the id field must hold a non-empty
    /// string or an integer, each declared field a value of its type (or null), within `limits`.
    public static func decode(
        json: [UInt8], schema: CollectionSchema, limits: CollectionDocumentLimits = .default
    ) throws(DocumentError) -> CollectionDocument {
        try CollectionDocumentDecoder(schema: schema, limits: limits).decode(json)
    }

    /// `decode(json:schema:limits:)` for any collection of bytes.
    public static func decode(
        json: some Collection<UInt8>, schema: CollectionSchema, limits: CollectionDocumentLimits = .default
    ) throws(DocumentError) -> CollectionDocument {
        try decode(json: Array(json), schema: schema, limits: limits)
    }

    /// The value of the declared field `name` in `schema`, if the document has one.
    public func value(of name: String, in schema: CollectionSchema) -> FieldValue? {
        guard let index = schema.fields.firstIndex(where: { $0.name == name }), index < values.count else { return nil }
        return values[index]
    }
}
