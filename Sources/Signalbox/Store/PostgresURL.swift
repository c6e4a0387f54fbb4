import Foundation
import PostgresNIO

/// A `postgres://user[:password]@host[:port][,host[:port]…]/database[?options]` URL (also
/// `postgresql://`), read as libpq reads it: several hosts are tried in turn for the one
/// `target_session_attrs` asks for, and the query options that matter here are `sslmode`
/// (disable, allow, prefer, require, verify-ca, verify-full), `sslrootcert`, `connect_timeout`
/// (seconds) and `target_session_attrs` (any, read-write, primary; read-only, standby and
/// prefer-standby are refused with a reason: a replica writes).
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

    /// One server of the URL's list.
    struct Host: Sendable, Hashable, CustomStringConvertible {
        var name: String
        var port: Int

        /// `name:port`, with an IPv6 address in brackets as in the URL.
        var description: String { name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)" }
    }

    /// Most hosts one URL may list.
    static let maximumHosts = 16

    var hosts: [Host]
    var username: String
    var password: String?
    var database: String?
    var sslMode: SSLMode
    var sslRootCertificate: String?
    var connectTimeout: Duration
    var targetSessionAttributes: TargetSessionAttributes

    /// Whether `text` names a PostgreSQL store rather than a SQLite file.
    static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    init(_ text: String) throws(Invalid) {
        guard let schemeEnd = text.range(of: "://"), Self.isPostgres(text) else {
            throw Invalid(description: "\(Self.redacted(text)) is not a postgres://user@host:port/database URL")
        }
        var rest = Substring(text[schemeEnd.upperBound...])
        var query = Substring("")
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var path = Substring("")
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        // The last "@" ends the user part (a password may hold a percent-encoded one).
        guard let at = rest.lastIndex(of: "@") else {
            throw Invalid(description: "the PostgreSQL URL names no user (postgres://user@host/db)")
        }
        let userInfo = rest[..<at]
        let user = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = user.first, !name.isEmpty else {
            throw Invalid(description: "the PostgreSQL URL names no user (postgres://user@host/db)")
        }
        username = Self.decoded(name)
        password = user.count > 1 ? Self.decoded(user[1]) : nil
        hosts = try Self.hosts(rest[rest.index(after: at)...])
        database = path.isEmpty ? nil : Self.decoded(path)
        sslMode = .prefer
        connectTimeout = .seconds(5)
        targetSessionAttributes = .any
        for item in query.split(separator: "&") where !item.isEmpty {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = Self.decoded(pair[0]), value = pair.count > 1 ? Self.decoded(pair[1]) : ""
            switch key {
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
            case "target_session_attrs":
                targetSessionAttributes = try TargetSessionAttributes(libpqValue: value)
            case "application_name":
                continue  // a libpq option that changes nothing here
            default:
                throw Invalid(
                    description: "the PostgreSQL URL option \(key) is not supported "
                        + "(sslmode, sslrootcert, connect_timeout, target_session_attrs are)")
            }
        }
    }

    /// The comma-separated `host[:port]` list; an IPv6 address goes in brackets.
    private static func hosts(_ list: Substring) throws(Invalid) -> [Host] {
        var hosts: [Host] = []
        for entry in list.split(separator: ",", omittingEmptySubsequences: false) {
            var name = entry, portText: Substring?
            if entry.hasPrefix("[") {
                guard let close = entry.firstIndex(of: "]") else {
                    throw Invalid(description: "the host \(entry) of the PostgreSQL URL lacks its closing ]")
                }
                name = entry[entry.index(after: entry.startIndex)..<close]
                let after = entry[entry.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":") else {
                        throw Invalid(description: "\(entry) of the PostgreSQL URL is not [address]:port")
                    }
                    portText = after.dropFirst()
                }
            } else if let colon = entry.lastIndex(of: ":") {
                name = entry[..<colon]
                portText = entry[entry.index(after: colon)...]
            }
            guard !name.isEmpty else {
                throw Invalid(description: "the PostgreSQL URL names no host" + (hosts.isEmpty ? "" : " after \(hosts.last!)"))
            }
            let decodedName = decoded(name)
            guard !decodedName.hasPrefix("/") else {
                throw Invalid(description: "\(decodedName) is a Unix socket directory; the store connects over TCP only")
            }
            var port = 5432
            if let portText {
                guard let number = Int(portText), (1...65535).contains(number) else {
                    throw Invalid(description: "the port \(portText) of \(decodedName) is not a number in 1...65535")
                }
                port = number
            }
            hosts.append(Host(name: decodedName, port: port))
        }
        guard hosts.count <= maximumHosts else {
            throw Invalid(description: "the PostgreSQL URL lists \(hosts.count) hosts; at most \(maximumHosts) are taken")
        }
        return hosts
    }

    private static func decoded(_ text: Substring) -> String {
        String(text).removingPercentEncoding ?? String(text)
    }

    /// Whether the hosts must be asked what they are (several, or a role to look for)
    /// rather than simply connected to, as one host with `any` is.
    var choosesAmongHosts: Bool {
        hosts.count > 1 || targetSessionAttributes != .any
    }

    /// The URL without its password, for logs and errors.
    var description: String {
        let list = hosts.map(\.description).joined(separator: ",")
        let target = targetSessionAttributes == .any ? "" : "&target_session_attrs=\(targetSessionAttributes.rawValue)"
        return "postgres://\(username)@\(list)/\(database ?? "")?sslmode=\(sslMode.rawValue)\(target)"
    }

    /// `text` with any password replaced by `***`, for messages about a URL that did not parse.
    static func redacted(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://"),
            let at = text[schemeEnd.upperBound...].split(separator: "/", maxSplits: 1).first?.lastIndex(of: "@"),
            let colon = text[schemeEnd.upperBound..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
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

    /// The configuration of the pool to `host`.
    func clientConfiguration(for host: Host) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case .disable: tls = .disable
        case .allow, .prefer: tls = .prefer(tlsConfiguration())
        case .require, .verifyCA, .verifyFull: tls = .require(tlsConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host.name, port: host.port, username: username, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = connectTimeout
        configuration.options.minimumConnections = 0
        configuration.options.maximumConnections = 8
        // No JIT: a replica's statements are short, and the planner, with no statistics for the
        // one-row head table, once priced the follower's read of the log past `jit_above_cost` and
        // compiled it on every call (24 ms of PostgreSQL's CPU a read, more than the commits took).
        configuration.options.additionalStartupParameters = [("jit", "off")]
        return configuration
    }

    /// The configuration of one connection to `host` (the listener, a probe).
    func connectionConfiguration(for host: Host) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case .disable: tls = .disable
        case .allow, .prefer: tls = .prefer(try NIOSSLContext(configuration: tlsConfiguration()))
        case .require, .verifyCA, .verifyFull: tls = .require(try NIOSSLContext(configuration: tlsConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(
            host: host.name, port: host.port, username: username, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .init(connectTimeout)
        return configuration
    }
}
