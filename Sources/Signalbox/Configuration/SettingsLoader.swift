import Configuration
import Foundation
import SystemPackage

/// Reads ``Settings`` from flags, environment, the JSON file and the defaults.
public enum SettingsLoader {
    /// The configuration file used when none is named.
    public static let defaultConfigFile = "Config/signalbox.json"

    /// Loads and validates every setting.
    ///
    /// - Parameters:
    ///   - overrides: values given as command-line flags, by setting key (`"port": "9090"`).
    ///   - configFile: the JSON file to read; `nil` reads ``defaultConfigFile`` if it exists.
    ///   - environment: the process environment (`SIGNALBOX_…` variables are read).
    /// - Throws: ``SettingsError`` naming the first invalid setting.
    public static func load(
        overrides: [String: String] = [:],
        configFile: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> Settings {
        let catalog = SettingsCatalog.all
        let file: FileProvider<JSONSnapshot>
        do {
            file = try await FileProvider<JSONSnapshot>(
                filePath: FilePath(configFile ?? defaultConfigFile), allowMissing: configFile == nil)
        } catch {
            throw SettingsError(description: "cannot read configuration file \(configFile ?? defaultConfigFile): \(error)")
        }
        var flagVariables: [String: String] = [:]
        for (key, value) in overrides {
            guard let descriptor = catalog.first(where: { $0.key == key }) else {
                throw SettingsError(description: "unknown setting \(key)")
            }
            flagVariables[descriptor.environmentVariable] = value
        }
        var defaults: [AbsoluteConfigKey: ConfigValue] = [:]
        for descriptor in catalog {
            if let content = descriptor.defaultContent {
                defaults[AbsoluteConfigKey(ConfigKey(descriptor.key))] = ConfigValue(content, isSecret: false)
            }
        }
        let reader = SettingsReader(providers: [
            EnvironmentVariablesProvider(environmentVariables: flagVariables).prefixKeys(with: "signalbox"),
            EnvironmentVariablesProvider(environmentVariables: environment, secretsSpecifier: .specific(["SIGNALBOX_API_KEY", "SIGNALBOX_API_KEYS", "SIGNALBOX_KEYS_MASTER_SECRET"]))
                .prefixKeys(with: "signalbox"),
            file,
            InMemoryProvider(name: "defaults", values: defaults),
        ])
        var settings = Settings()
        for descriptor in catalog {
            do {
                try descriptor.read(reader, &settings)
            } catch {
                throw SettingsError(
                    description: "invalid setting \(descriptor.key) (\(descriptor.environmentVariable)): \(error)")
            }
        }
        try SettingsCatalog.checkCombination(settings)
        return settings
    }
}
