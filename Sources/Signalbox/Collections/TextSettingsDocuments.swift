import Foundation
import Search

/// Where a collection's synonyms and stop words are kept: as the documents of an internal
/// collection (as the stored keys are), `{name}/synonyms` and `{name}/stopwords`, so they are
/// committed, replicated through the change log, snapshotted and replayed at start as documents
/// are. A collection name cannot start with `_`, so no user collection can reach it; applied,
/// never published as events.
enum TextSettingsDocuments {
    static let collection = "_settings"

    enum Part: String, Sendable, CaseIterable {
        case synonyms
        case stopwords
    }

    static func id(of collection: String, _ part: Part) -> String {
        "\(collection)/\(part.rawValue)"
    }

    /// The collection and part an id names (a collection name has no `/`).
    static func parse(_ id: String) -> (collection: String, part: Part)? {
        guard let slash = id.lastIndex(of: "/"), let part = Part(rawValue: String(id[id.index(after: slash)...])) else { return nil }
        return (String(id[..<slash]), part)
    }

    /// Applies a stored settings document (nil: removed) to its collection, when this replica
    /// serves it. Bodies were checked when put: read without bounds, so a lower limit set since
    /// does not drop settings already accepted.
    static func apply(id: String, body: Data?, to catalog: CollectionCatalog) {
        guard let (name, part) = parse(id), let collection = catalog.named(name) else { return }
        switch part {
        case .synonyms: collection.apply(synonyms: body.flatMap { try? SynonymSettings.decode(json: Array($0), limits: unbounded) })
        case .stopwords: collection.apply(stopWords: body.flatMap { try? StopWordSettings.decode(json: Array($0), limits: unbounded) })
        }
    }

    /// Applies every settings document of a store's snapshot, at start.
    static func load(_ documents: [StoredChange], into catalog: CollectionCatalog) {
        for change in documents where change.collection == collection { apply(id: change.id, body: change.body, to: catalog) }
    }

    private static let unbounded: TextSettingsLimits = {
        var limits = TextSettingsLimits()
        limits.maxGroups = .max
        limits.maxWordsPerGroup = .max
        limits.maxPhraseWords = .max
        limits.maxEntryBytes = .max
        limits.maxStopWords = .max
        return limits
    }()
}
