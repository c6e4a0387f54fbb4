/// Why `signalbox import` stopped before its end, and the exit code that says so.
///
/// Exit 1 is not here: it means the import ran to its end and some lines failed.
enum ImportFailure: Error, CustomStringConvertible {
    /// The command line cannot be used (exit 2, the usual code for a usage error).
    case usage(String)
    /// The server cannot be reached, or its connection broke (exit 3).
    case unreachable(String)
    /// The server answered an error: its status and the problem's `detail` (exit 4).
    case refused(status: Int, detail: String)
    /// A file cannot be read: missing, corrupt gzip, a record longer than a request (exit 5).
    case unreadable(String)

    var exitCode: Int32 {
        switch self {
        case .usage: 2
        case .unreachable: 3
        case .refused: 4
        case .unreadable: 5
        }
    }

    var description: String {
        switch self {
        case .usage(let message): message
        case .unreachable(let message): "cannot reach the server: \(message)"
        case .refused(let status, let detail): "the server answered \(status): \(detail)"
        case .unreadable(let message): message
        }
    }
}
