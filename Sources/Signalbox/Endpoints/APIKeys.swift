import Foundation

/// The write keys from a keys file (`apiKeysFile`): one key a line; blank lines and lines
/// starting with `#` are skipped. Read when the settings are loaded, so SIGHUP re-reads it: an
/// operator adds a new key, moves clients to it, then removes the old one, without a restart.
public struct APIKeysFile: Sendable, Equatable, CustomStringConvertible {
    public let path: String
    /// The keys the file held when it was read.
    let keys: [String]

    /// Reads `path`; an unreadable file or a key with whitespace inside is an error.
    init(path: String) throws(SettingsError) {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw SettingsError(description: "cannot read the keys file \(path)")
        }
        keys = try APIKeys.parse(text, source: path)
    }

    /// The path only: keys are never written to logs.
    public var description: String { path }
}

enum APIKeys {
    /// Keys separated by newlines, commas or spaces (`SIGNALBOX_API_KEYS="new,old"`), `#` comments skipped.
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
        if let list = settings.apiKeys { keys += (try? parse(list, source: "apiKeys")) ?? [] }
        keys += settings.apiKeysFile?.keys ?? []
        return keys
    }
}
