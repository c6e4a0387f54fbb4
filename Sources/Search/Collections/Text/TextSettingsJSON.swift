import Foundation

/// The JSON reading and writing shared by ``SynonymSettings`` and ``StopWordSettings``.
enum TextSettingsJSON {
    /// The body as an object with no members but `members`.
    static func object(_ json: [UInt8], members: Set<String>) throws(TextSettingsError) -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any] else {
            throw TextSettingsError(field: "", "The body must be a JSON object with \(members.sorted().joined(separator: " and ")).")
        }
        if let unknown = object.keys.sorted().first(where: { !members.contains($0) }) {
            throw TextSettingsError(field: String(unknown.prefix(64)), "is not a member; send \(members.sorted().joined(separator: " and ")).")
        }
        return object
    }

    /// `value` as an entry: a string of 1 to `maxPhraseWords` words (as the index splits text),
    /// at most `maxEntryBytes` long; kept as given (queries fold it).
    static func phrase(_ value: Any, field: String, limits: TextSettingsLimits) throws(TextSettingsError) -> String {
        guard let text = value as? String else { throw TextSettingsError(field: field, "must be a string.") }
        guard text.utf8.count <= limits.maxEntryBytes else {
            throw TextSettingsError(field: field, "is longer than \(limits.maxEntryBytes) bytes.")
        }
        let words = QueryRules.words(of: text).count
        guard words > 0 else { throw TextSettingsError(field: field, "has no word.") }
        guard words <= limits.maxPhraseWords else {
            throw TextSettingsError(
                field: field, limits.maxPhraseWords == 1 ? "must be one word." : "has \(words) words; at most \(limits.maxPhraseWords).")
        }
        return text
    }

    static func quoted(_ text: String) -> String {
        var output: [UInt8] = []
        JSONOutput.appendString(text, to: &output)
        return String(decoding: output, as: UTF8.self)
    }
}
