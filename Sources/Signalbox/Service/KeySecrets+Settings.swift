import Foundation

extension KeySecrets {
    /// Shortest master secret, in bytes.
    static let minimumMasterSecretBytes = 16

    /// The secrets of `settings` (`keys.masterSecret`, else `keys.masterSecretFile`'s first line);
    /// nil when neither is set. A short secret or an unreadable file stops the start.
    static func from(_ settings: Settings) throws(SettingsError) -> KeySecrets? {
        var secret = settings.keysMasterSecret
        if secret == nil, let path = settings.keysMasterSecretFile {
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw SettingsError(description: "cannot read keys.masterSecretFile \(path)")
            }
            secret = text.split(whereSeparator: \.isNewline).first.map { String($0).trimmingCharacters(in: .whitespaces) }
        }
        guard let secret else { return nil }
        guard secret.utf8.count >= minimumMasterSecretBytes else {
            throw SettingsError(
                description: "invalid setting keys.masterSecret (SIGNALBOX_KEYS_MASTER_SECRET): at least \(minimumMasterSecretBytes) bytes")
        }
        return KeySecrets(masterSecret: secret)
    }
}
