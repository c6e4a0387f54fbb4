/// A collection's stop words, as `PUT /collections/{name}/stopwords` takes them
/// (`{"stopwords": ["the", "of"]}`): words a query ignores, unless it has nothing else.
public struct StopWordSettings: Sendable, Hashable {
    public var words: [String]

    public init(words: [String] = []) {
        self.words = words
    }

    public var isEmpty: Bool { words.isEmpty }

    /// Reads `{"stopwords": [...]}`: each entry one word; refuses what `limits` does not allow, naming the field.
    public static func decode(json: [UInt8], limits: TextSettingsLimits = TextSettingsLimits()) throws(TextSettingsError) -> StopWordSettings {
        let object = try TextSettingsJSON.object(json, members: ["stopwords"])
        guard let value = object["stopwords"] else { throw TextSettingsError(field: "stopwords", "is required: an array of words.") }
        guard let entries = value as? [Any] else { throw TextSettingsError(field: "stopwords", "must be an array of strings.") }
        guard entries.count <= limits.maxStopWords else {
            throw TextSettingsError(field: "stopwords", "has \(entries.count) words; at most \(limits.maxStopWords) (collections.maxStopWords).")
        }
        var singleWord = limits
        singleWord.maxPhraseWords = 1
        var words: [String] = []
        for (index, entry) in entries.enumerated() {
            let word = try TextSettingsJSON.phrase(entry, field: "stopwords[\(index)]", limits: singleWord)
            if !words.contains(word) { words.append(word) }
        }
        return StopWordSettings(words: words)
    }

    /// `{"stopwords": [...]}`, as `GET` gives it back.
    public func encodedJSON() -> [UInt8] {
        Array(("{\"stopwords\":[" + words.map(TextSettingsJSON.quoted).joined(separator: ",") + "]}").utf8)
    }
}
