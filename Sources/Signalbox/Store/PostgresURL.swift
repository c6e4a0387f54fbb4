import Foundation
import PostgresNIO

/// A `postgres://user[:password]@host[:port]/database[?options]` URL (also `postgresql://`), with
/// libpq's query options that matter here: `sslmode` (disable, allow, prefer, require, verify-ca,
/// verify-full), `sslrootcert` and `connect_timeout` (seconds).
struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    enum SSLMode: String, Sendable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// Text that is not a PostgreSQL URL this store can use; the service reports it as an invalid `store` setting.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    var host: String
    var port: Int
    var username: String
    var password: String?
    var database: String?
    var sslMode: SSLMode
    var sslRootCertificate: String?
    var connectTimeout: Duration

    /// Whether `text` names a PostgreSQL store rather than a SQLite file.
    static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    init(_ text: String) throws(Invalid) {
        guard Self.isPostgres(text), let components = URLComponents(string: text) else {
            throw Invalid(description: "\(Self.redacted(text)) is not a postgres://user@host:port/database URL")
        }
        guard let host = components.host, !host.isEmpty else {
            throw Invalid(description: "the PostgreSQL URL names no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw Invalid(description: "the PostgreSQL URL names no user (postgres://user@host/db)")
        }
        self.host = host
        port = components.port ?? 5432
        username = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let path = components.path.drop { $0 == "/" }
        database = path.isEmpty ? nil : String(path)
        sslMode = .prefer
        connectTimeout = .seconds(5)
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard let mode = SSLMode(rawValue: value) else {
                    throw Invalid(description: "sslmode=\(value) is not one of disable, allow, prefer, require, verify-ca, verify-full")
                }
                sslMode = mode
            case "sslrootcert":
                sslRootCertificate = value
            case "connect_timeout":
                guard let seconds = Int(value), seconds > 0 else {
                    throw Invalid(description: "connect_timeout=\(value) is not a positive number of seconds")
                }
                connectTimeout = .seconds(seconds)
            case "application_name", "target_session_attrs":
                continue  // libpq options that change nothing here
            default:
                throw Invalid(description: "the PostgreSQL URL option \(item.name) is not supported (sslmode, sslrootcert, connect_timeout are)")
            }
        }
    }

    /// The URL without its password, for logs and errors.
    var description: String {
        "postgres://\(username)@\(host):\(port)/\(database ?? "")?sslmode=\(sslMode.rawValue)"
    }

    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "(unparsable URL)"
    }

    /// TLS as libpq's sslmode means it: `require` encrypts without checking the
    /// certificate, `verify-ca` checks the chain, `verify-full` the host name too.
    private func tlsConfiguration() -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch sslMode {
        case .verifyFull: tls.certificateVerification = .fullVerification
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        default: tls.certificateVerification = .none
        }
        if let sslRootCertificate { tls.trustRoots = .file(sslRootCertificate) }
        return tls
    }

    /// The pool's configuration.
    func clientConfiguration() -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case .disable: tls = .disable
        case .allow, .prefer: tls = .prefer(tlsConfiguration())
        case .require, .verifyCA, .verifyFull: tls = .require(tlsConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = connectTimeout
        configuration.options.minimumConnections = 0
        configuration.options.maximumConnections = 8
        return configuration
    }

    /// The configuration of the one connection that listens for wake-ups.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case .disable: tls = .disable
        case .allow, .prefer: tls = .prefer(try NIOSSLContext(configuration: tlsConfiguration()))
        case .require, .verifyCA, .verifyFull: tls = .require(try NIOSSLContext(configuration: tlsConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .init(connectTimeout)
        return configuration
    }
}
