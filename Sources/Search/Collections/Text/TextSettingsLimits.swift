/// The bounds of a collection's synonyms and stop words (`collections.maxSynonymGroups`,
/// `collections.maxSynonymWords`, `collections.maxStopWords`); a body beyond one is refused (400),
/// naming it.
public struct TextSettingsLimits: Sendable, Hashable {
    /// Most synonym groups and one-way rules, together.
    public var maxGroups = 1_000
    /// Most entries in one group (the source of a one-way rule counted with its targets).
    public var maxWordsPerGroup = 20
    /// Most words in one entry (`"new york"` is two): longer phrases are refused.
    public var maxPhraseWords = SearchQuery.Limits.maxWords
    /// Longest entry, in UTF-8 bytes.
    public var maxEntryBytes = 128
    /// Most stop words.
    public var maxStopWords = 1_000

    public init() {}
}

/// Why a synonyms or stop words body is refused: the field it is about (`synonyms[2][0]`) and
/// what is wrong with it.
public struct TextSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    public let field: String
    public let reason: String

    public init(field: String, _ reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { field.isEmpty ? reason : "\(field): \(reason)" }
}
