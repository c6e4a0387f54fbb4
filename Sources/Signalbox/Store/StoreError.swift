import Foundation

/// Why the store could not take a write, whatever the store is.
///
/// The endpoints answer these as problems (``StoreProblem``): a write the store could not make
/// durable is never acknowledged with 204.
enum StoreError: Error, Sendable, CustomStringConvertible {
    /// The store's disk (or quota) is full: 507 Insufficient Storage. Retrying once space is
    /// freed succeeds; nothing was written.
    case full(detail: String)
    /// The store cannot take writes for a while (an I/O error, a lost connection): 503 with
    /// Retry-After. Nothing was written.
    case unavailable(detail: String)

    var description: String {
        switch self {
        case .full(let detail): "store full: \(detail)"
        case .unavailable(let detail): "store unavailable: \(detail)"
        }
    }
}

/// A store file that cannot be used at start: the process stops with one line naming the file
/// and an exit code of its own, rather than crash or silently start an empty store.
public struct StoreStartError: Error, Sendable, CustomStringConvertible {
    public enum Reason: Sendable {
        /// The directory that should hold the store does not exist (exit 66, EX_NOINPUT).
        case directoryMissing
        /// The file (or its directory) cannot be read (exit 77, EX_NOPERM).
        case unreadable
        /// The file or its directory cannot be written (exit 73, EX_CANTCREAT).
        case readOnly
        /// The file is not a database, or fails SQLite's quick_check (exit 65, EX_DATAERR).
        case corrupt
        /// Any other failure to open it (exit 74, EX_IOERR).
        case unusable
    }

    public let reason: Reason
    /// The store file's path.
    public let path: String
    /// What the store said, for the one line.
    public let detail: String

    /// The process's exit code for this reason (from sysexits.h).
    public var exitCode: Int32 {
        switch reason {
        case .directoryMissing: 66
        case .unreadable: 77
        case .readOnly: 73
        case .corrupt: 65
        case .unusable: 74
        }
    }

    public var description: String {
        let what =
            switch reason {
            case .directoryMissing: "its directory does not exist"
            case .unreadable: "it cannot be read"
            case .readOnly: "it cannot be written"
            case .corrupt: "it is not a valid SQLite store"
            case .unusable: "it cannot be opened"
            }
        return "store \(path): \(what) (\(detail))"
    }
}

/// Why a replica cannot join a cluster's PostgreSQL store: the start stops with this one line (exit 78, EX_CONFIG).
public enum ClusterStartError: Error, Sendable, CustomStringConvertible {
    /// The database's schema was made by a newer Signalbox.
    case schemaTooNew(found: Int, known: Int)
    /// This replica's base data set is not the one the cluster was created with.
    case baseDataDiffers(stored: String, local: String)

    public var description: String {
        switch self {
        case .schemaTooNew(let found, let known):
            "the PostgreSQL schema is version \(found), newer than this signalbox knows (\(known)): upgrade this replica"
        case .baseDataDiffers(let stored, let local):
            "this replica's base data set (digest \(local)) differs from the cluster's (digest \(stored)): "
                + "every replica must serve the same --data file (or all the embedded cities)"
        }
    }
}
