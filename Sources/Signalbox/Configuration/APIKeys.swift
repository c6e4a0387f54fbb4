import Foundation

/// The keys that may write, from the three settings that hold them.
enum APIKeys {
    /// Keys separated by newlines, commas or spaces (`SIGNALBOX_API_KEYS="new,old"`), `#` comments
    /// skipped; a key with a character that is not printable ASCII is an error.
    static func parse(_ text: String, source: String) throws(SettingsError) -> [String] {
        var keys: [String] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            for key in trimmed.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
                guard key.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline }) else {
                    throw SettingsError(description: "a key in \(source) holds a character that is not printable ASCII")
                }
                keys.append(String(key))
            }
        }
        return keys
    }

    /// Every key that may write: `apiKey`, `apiKeys` and the keys file's.
    static func all(_ settings: Settings) -> [String] {
        var keys = settings.apiKey.map { [$0] } ?? []
        keys += settings.apiKeys
        keys += settings.apiKeysFile?.keys ?? []
        return keys
    }
}
