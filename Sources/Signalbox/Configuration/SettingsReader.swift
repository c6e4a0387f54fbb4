import Base
import Configuration

/// Reads one setting at a time from the providers (flags, environment, file, defaults), and
/// tells a value that is absent from one of the wrong type.
///
/// swift-configuration's getters answer `nil` for both (a JSON list where a string belongs, a
/// word where a number belongs) and say which it was only to an access reporter: this reader
/// keeps one, so a wrongly typed value stops the start naming its setting instead of being
/// skipped as if it were not there.
struct SettingsReader {
    /// What a setting's value must be; named in the error when it is something else.
    enum Kind: String, Sendable {
        case string = "a string"
        case integer = "a whole number"
        case number = "a number"
        case boolean = "true or false"
        case stringList = "a list of strings (a JSON list, or one string of items separated by commas)"
    }

    private let reader: ConfigReader
    private let failures = LookupFailures()

    init(providers: [any ConfigProvider]) {
        reader = ConfigReader(providers: providers, accessReporter: failures)
    }

    func string(_ key: String) throws(SettingsError) -> String? {
        try value(key, .string) { $0.string(forKey: $1) }
    }

    func int(_ key: String) throws(SettingsError) -> Int? {
        try value(key, .integer) { $0.int(forKey: $1) }
    }

    func double(_ key: String) throws(SettingsError) -> Double? {
        try value(key, .number) { $0.double(forKey: $1) }
    }

    func bool(_ key: String) throws(SettingsError) -> Bool? {
        try value(key, .boolean) { $0.bool(forKey: $1) }
    }

    /// A JSON list of strings in the file; in the environment and `--set`, items separated by
    /// commas. One string of comma-separated items is taken from the file too.
    func stringList(_ key: String) throws(SettingsError) -> [String]? {
        failures.clear()
        if let list = reader.stringArray(forKey: ConfigKey(key)) { return list }
        guard failures.found else { return nil }
        return try value(key, .stringList) { reader, key in
            reader.string(forKey: key).map { $0.split(separator: ",").map(String.init) }
        }
    }

    /// The value `get` reads for `key`; nil when no provider has one; an error naming `kind`
    /// when a provider has one of another type.
    private func value<Value>(
        _ key: String, _ kind: Kind, _ get: (ConfigReader, ConfigKey) -> Value?
    ) throws(SettingsError) -> Value? {
        failures.clear()
        if let found = get(reader, ConfigKey(key)) { return found }
        guard !failures.found else { throw SettingsError(description: "expects \(kind.rawValue)") }
        return nil
    }
}

/// Whether a lookup since the last `clear` found a value it could not use: a provider refused
/// it as the wrong type, or its conversion failed.
private final class LookupFailures: AccessReporter {
    private let failed = Locked(false)

    func report(_ event: AccessEvent) {
        let providerFailed = event.providerResults.contains { result in
            if case .failure = result.result { return true }
            return false
        }
        if providerFailed || event.conversionError != nil { failed.withLock { $0 = true } }
    }

    func clear() { failed.withLock { $0 = false } }

    var found: Bool { failed.withLock { $0 } }
}
