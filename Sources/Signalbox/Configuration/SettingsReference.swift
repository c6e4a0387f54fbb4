/// Where settings come from, kept so SIGHUP can read them again.
public struct SettingsSource: Sendable {
    /// Values given as flags, by setting key.
    public var overrides: [String: String]
    /// The configuration file named on the command line or in `SIGNALBOX_CONFIG`.
    public var configFile: String?

    public init(overrides: [String: String] = [:], configFile: String? = nil) {
        self.overrides = overrides
        self.configFile = configFile
    }

    /// Reads every setting now (again, on SIGHUP).
    public func load(environment: [String: String]) async throws -> Settings {
        try await SettingsLoader.load(
            overrides: overrides, configFile: configFile ?? environment["SIGNALBOX_CONFIG"], environment: environment)
    }
}

/// The settings table as text, for `--help` and the README.
public enum SettingsReference {
    /// Every setting with its environment variable and default.
    public static var helpText: String {
        var lines = ["SETTINGS (flag --set key=value, environment variable, or JSON file key; * = reloaded on SIGHUP):"]
        for descriptor in SettingsCatalog.all {
            lines.append("  \(descriptor.key)\(descriptor.reloadable ? " *" : "")  [\(descriptor.environmentVariable)]")
            lines.append("      \(descriptor.summary) (default: \(descriptor.defaultText))")
        }
        return lines.joined(separator: "\n")
    }

    /// A Markdown table of every setting, as in the README.
    static var markdownTable: String {
        var lines = ["| key | environment | default | reload | meaning |", "|---|---|---|---|---|"]
        for descriptor in SettingsCatalog.all {
            lines.append(
                "| `\(descriptor.key)` | `\(descriptor.environmentVariable)` | \(descriptor.defaultText) | "
                    + "\(descriptor.reloadable ? "SIGHUP" : "restart") | \(descriptor.summary) |")
        }
        return lines.joined(separator: "\n")
    }
}
