import Foundation
import Testing
import HTTP
@testable import Signalbox

@Suite struct SettingsTests {
    /// The package root, so the test reads the committed `Config/` whatever the working directory.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func temporaryFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-\(UUID().uuidString).json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func defaultsWithoutAnySource() async throws {
        let settings = try await SettingsLoader.load(configFile: try temporaryFile("{}"), environment: [:])
        #expect(settings == Settings())
    }

    @Test func committedDefaultsFileMatchesTheBuiltInDefaults() async throws {
        let path = Self.root.appendingPathComponent("Config/signalbox.json").path
        let settings = try await SettingsLoader.load(configFile: path, environment: [:])
        #expect(settings == Settings())
        let json = try String(contentsOfFile: path, encoding: .utf8)
        for descriptor in SettingsCatalog.all where descriptor.defaultContent != nil {
            let leaf = descriptor.key.split(separator: ".").last!
            #expect(json.contains("\"\(leaf)\""), "Config/signalbox.json lacks \(descriptor.key)")
        }
    }

    @Test func flagsBeatEnvironmentWhichBeatsTheFile() async throws {
        let file = try temporaryFile(#"{"port": 7000, "host": "127.0.0.1", "http": {"maxConnections": 5}}"#)
        let settings = try await SettingsLoader.load(
            overrides: ["port": "9090"],
            configFile: file,
            environment: ["SIGNALBOX_PORT": "8081", "SIGNALBOX_HTTP_MAX_CONNECTIONS": "7", "SIGNALBOX_API_KEY": "k"]
        )
        #expect(settings.port == 9090)
        #expect(settings.host == "127.0.0.1")
        #expect(settings.maxConnections == 7)
        #expect(settings.apiKey == "k")
    }

    @Test func environmentVariableNames() {
        let names = Dictionary(uniqueKeysWithValues: SettingsCatalog.all.map { ($0.key, $0.environmentVariable) })
        #expect(names["apiKey"] == "SIGNALBOX_API_KEY")
        #expect(names["http.maxConnections"] == "SIGNALBOX_HTTP_MAX_CONNECTIONS")
        #expect(names["sse.heartbeatInterval"] == "SIGNALBOX_SSE_HEARTBEAT_INTERVAL")
        #expect(names["data"] == "SIGNALBOX_DATA")
        #expect(names["tls.cert"] == "SIGNALBOX_TLS_CERT")
        #expect(names["tls.key"] == "SIGNALBOX_TLS_KEY")
        #expect(names["tls.redirectPort"] == "SIGNALBOX_TLS_REDIRECT_PORT")
        #expect(names["tls.handshakeTimeout"] == "SIGNALBOX_TLS_HANDSHAKE_TIMEOUT")
    }

    @Test func tlsSettingsFromFlagsEnvironmentAndFile() async throws {
        let file = try temporaryFile(#"{"tls": {"cert": "/etc/c.pem", "key": "/etc/k.pem", "redirectPort": 8081}}"#)
        let fromFile = try await SettingsLoader.load(configFile: file, environment: [:])
        #expect(fromFile.tlsCertificatePath == "/etc/c.pem")
        #expect(fromFile.tlsKeyPath == "/etc/k.pem")
        #expect(fromFile.tlsRedirectPort == 8081)
        #expect(fromFile.serverConfiguration.tls?.redirectPort == 8081)
        let fromEnvironment = try await SettingsLoader.load(
            overrides: ["tls.redirectPort": "8082"], configFile: try temporaryFile("{}"),
            environment: ["SIGNALBOX_TLS_CERT": "c", "SIGNALBOX_TLS_KEY": "k", "SIGNALBOX_TLS_HANDSHAKE_TIMEOUT": "2.5"])
        #expect(fromEnvironment.serverConfiguration.tls == TLSConfiguration(
            certificateChainFile: "c", privateKeyFile: "k", handshakeTimeout: .seconds(2.5), redirectPort: 8082))
        #expect(Settings().serverConfiguration.tls == nil)
    }

    @Test(arguments: [
        (["SIGNALBOX_TLS_CERT": "c"], "tls.key"),
        (["SIGNALBOX_TLS_KEY": "k"], "tls.cert"),
        (["SIGNALBOX_TLS_REDIRECT_PORT": "8081"], "needs HTTPS"),
        (["SIGNALBOX_TLS_CERT": "c", "SIGNALBOX_TLS_KEY": "k", "SIGNALBOX_TLS_REDIRECT_PORT": "eighty"], "tls.redirectPort"),
        (["SIGNALBOX_TLS_CERT": "c", "SIGNALBOX_TLS_KEY": "k", "SIGNALBOX_TLS_REDIRECT_PORT": "8080"], "must differ"),
    ])
    func incompleteTLSSettingsAreErrors(environment: [String: String], message: String) async throws {
        let error = await #expect(throws: SettingsError.self) {
            try await SettingsLoader.load(configFile: try temporaryFile("{}"), environment: environment)
        }
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
    }

    @Test(arguments: [
        ("SIGNALBOX_PORT", "eighty", "port"),
        ("SIGNALBOX_PORT", "70000", "port"),
        ("SIGNALBOX_HTTP_HEADER_TIMEOUT", "-1", "http.headerTimeout"),
        ("SIGNALBOX_LOG_FORMAT", "xml", "log.format"),
    ])
    func invalidValuesStopWithTheKeyNamed(variable: String, value: String, key: String) async throws {
        let file = try temporaryFile("{}")
        let error = await #expect(throws: SettingsError.self) {
            try await SettingsLoader.load(configFile: file, environment: [variable: value])
        }
        #expect(error?.description.contains(key) == true)
        #expect(error?.description.contains(variable) == true)
    }

    /// `apiKeys` as a JSON list in the file once read as no key at all (every write 403); the
    /// environment and `--set` take the comma form, and the file a comma-separated string too.
    @Test func listSettingsTakeAJSONListOrCommas() async throws {
        let list = try await SettingsLoader.load(configFile: try temporaryFile(#"{"apiKeys": ["k1", "k2"]}"#), environment: [:])
        #expect(list.apiKeys == ["k1", "k2"])
        #expect(APIKeys.all(list) == ["k1", "k2"])
        let joined = try await SettingsLoader.load(configFile: try temporaryFile(#"{"apiKeys": "k1,k2"}"#), environment: [:])
        #expect(joined.apiKeys == ["k1", "k2"])
        let empty = try await SettingsLoader.load(configFile: try temporaryFile(#"{"apiKeys": []}"#), environment: [:])
        #expect(empty.apiKeys == [])
        let environment = try await SettingsLoader.load(
            configFile: try temporaryFile(#"{"apiKeys": ["file"]}"#), environment: ["SIGNALBOX_API_KEYS": "new, old"])
        #expect(environment.apiKeys == ["new", "old"])
        let flag = try await SettingsLoader.load(
            overrides: ["apiKeys": "x,y"], configFile: try temporaryFile("{}"), environment: ["SIGNALBOX_API_KEYS": "e"])
        #expect(flag.apiKeys == ["x", "y"])
        let error = await #expect(throws: SettingsError.self) {
            try await SettingsLoader.load(configFile: try temporaryFile(#"{"apiKeys": ["fine", "clé"]}"#), environment: [:])
        }
        #expect(error?.description.contains("apiKeys") == true, "\(error?.description ?? "")")
    }

    /// A JSON value of the wrong type for any setting, optional ones included, stops the load
    /// naming the setting: never skipped as if it were absent.
    @Test(arguments: SettingsCatalog.all.map(\.key))
    func aWronglyTypedValueInTheFileStopsTheLoadNamingItsSetting(key: String) async throws {
        let descriptor = try #require(SettingsCatalog.all.first { $0.key == key })
        let wrong =
            switch descriptor.kind {
            case .string: #"["a", "b"]"#
            case .stringList: "12"
            case .integer, .number, .boolean: #""x""#
            }
        // `http.maxConnections` is `{"http": {"maxConnections": …}}`.
        let parts = key.split(separator: ".")
        let json = parts.reversed().reduce(wrong) { inner, part in "{\"\(part)\": \(inner)}" }
        let error = await #expect(throws: SettingsError.self, "\(json)") {
            try await SettingsLoader.load(configFile: try temporaryFile(json), environment: [:])
        }
        let message = error?.description ?? ""
        #expect(message.contains("invalid setting \(key) (\(descriptor.environmentVariable))"), "\(message)")
        #expect(message.contains(descriptor.kind.rawValue), "\(message)")
    }

    @Test func missingNamedConfigFileIsAnError() async throws {
        await #expect(throws: SettingsError.self) {
            try await SettingsLoader.load(configFile: "/nonexistent/signalbox.json", environment: [:])
        }
    }

    @Test func unknownFlagIsAnError() async throws {
        await #expect(throws: SettingsError.self) {
            try await SettingsLoader.load(overrides: ["nope": "1"], configFile: try temporaryFile("{}"), environment: [:])
        }
    }
}
