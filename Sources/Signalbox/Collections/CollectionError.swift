import Search

/// Why a collection request was refused; the endpoints answer each with its problem status.
enum CollectionError: Error, Sendable, Equatable {
    case noSuchCollection(String)
    case noSuchDocument(collection: String, id: String)
    case invalidName(String)
    case invalidSchema(String)
    /// The built-in cities' schema is fixed, and the collection cannot be deleted.
    case builtIn(String)
    case tooManyCollections(limit: Int)
    case tooManyDocuments(collection: String, limit: Int)
    case invalidDocument(String)
    /// The body's id differs from the path's.
    case idMismatch(body: String, path: String)
    case unsupportedImport(String)
    /// A synonyms or stop words body that is refused (400), naming its field.
    case invalidTextSettings(TextSettingsError)
}
