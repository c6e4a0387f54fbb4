import Search

/// The bounds of collections, from the settings (`collections.*`, `import.*`); each one beyond
/// answers a problem naming it.
struct CollectionLimits: Sendable {
    /// Most collections besides the cities (`collections.max`).
    var maxCollections = 100
    /// Most documents in one collection (`collections.maxDocuments`).
    var maxDocuments = 10_000_000
    /// The schema's bounds: most fields (`collections.maxFields`).
    var schema = SchemaLimits()
    /// A document's bounds: longest field value (`collections.maxValueBytes`) and its whole body.
    var document = CollectionDocumentLimits()
    /// A collection's synonyms and stop words: most groups (`collections.maxSynonymGroups`),
    /// entries per group (`collections.maxSynonymWords`), stop words (`collections.maxStopWords`).
    var text = TextSettingsLimits()
    /// Most distinct live queries per collection (`live.maxQueries`).
    var maxLiveQueries = 1_000
    /// Documents committed in one transaction by an import (`import.batchSize`).
    var importBatch = 8_192
    /// Largest import body, inflated (`import.maxBytes`).
    var importMaxBytes = 256 << 20
}
