/// libpq's `target_session_attrs`: which of a URL's hosts a connection goes to. The hosts are
/// tried in the URL's order and the first that qualifies is taken, as libpq does.
///
/// A replica writes, so only the values that end on a server taking writes are accepted:
/// `any` (the first host that answers; libpq's default), `read-write` (the server's
/// `transaction_read_only` is off) and `primary` (it is not in recovery). `read-only`,
/// `standby` and `prefer-standby` are refused with that reason.
enum TargetSessionAttributes: String, Sendable, Equatable {
    case any
    case readWrite = "read-write"
    case primary

    /// What a probe of one host found.
    struct ServerRole: Sendable, Equatable {
        /// `pg_is_in_recovery()`: a standby (or a server still recovering after a crash).
        var inRecovery: Bool
        /// `transaction_read_only` of a new session: a standby, or a primary set read-only.
        var readOnly: Bool

        static let primary = ServerRole(inRecovery: false, readOnly: false)
        static let standby = ServerRole(inRecovery: true, readOnly: true)
    }

    init(libpqValue value: String) throws(PostgresURL.Invalid) {
        switch value {
        case "any": self = .any
        case "read-write": self = .readWrite
        case "primary": self = .primary
        case "read-only", "standby", "prefer-standby":
            throw PostgresURL.Invalid(
                description: "target_session_attrs=\(value) would connect to a server that takes no writes, "
                    + "and every replica writes; use read-write or primary (or leave it out: any)")
        default:
            throw PostgresURL.Invalid(
                description: "target_session_attrs=\(value) is not one of any, read-write, primary "
                    + "(libpq's read-only, standby and prefer-standby cannot take a replica's writes)")
        }
    }

    /// Whether a server of `role` is one to connect to.
    func accepts(_ role: ServerRole) -> Bool {
        switch self {
        case .any: true
        case .readWrite: !role.readOnly
        case .primary: !role.inRecovery
        }
    }

    /// The first host, in the URL's order, whose probe succeeded and found a server to connect to.
    func choose<Host>(from probes: [(host: Host, role: ServerRole?)]) -> Host? {
        probes.first { probe in probe.role.map(accepts) ?? false }?.host
    }
}
