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
