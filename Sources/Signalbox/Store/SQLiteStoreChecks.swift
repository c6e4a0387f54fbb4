import Foundation
import GRDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// SQLite-specific checks of the store: what a failed write means, and whether a store file can
/// be used at all before the service starts on it.
enum SQLiteStoreChecks {
    /// A write's error as the service should answer it: SQLITE_FULL (the disk or quota is full)
    /// is ``StoreError/full(detail:)``; an I/O error is ``StoreError/unavailable(detail:)``.
    /// Other errors pass unchanged.
    static func writeError(_ error: any Error) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        switch error.resultCode.primaryResultCode {
        case .SQLITE_FULL:
            return StoreError.full(detail: "the store's disk is full")
        case .SQLITE_IOERR:
            // A write or fsync that failed (ENOSPC among the causes) left nothing durable.
            switch error.extendedResultCode {
            case .SQLITE_IOERR_WRITE, .SQLITE_IOERR_FSYNC, .SQLITE_IOERR_TRUNCATE, .SQLITE_IOERR_SHMSIZE:
                return StoreError.full(detail: "the store could not write to its disk")
            default:
                return StoreError.unavailable(detail: "the store had an I/O error")
            }
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_BUSY, .SQLITE_LOCKED:
            return StoreError.unavailable(detail: "the store cannot take writes right now")
        default:
            return error
        }
    }

    /// Checks what the file system says before SQLite opens `path`: a missing directory, an
    /// unreadable or read-only file or directory.
    static func checkBeforeOpening(_ path: String) throws(StoreStartError) {
        let directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StoreStartError(reason: .directoryMissing, path: path, detail: "no directory \(directory)")
        }
        if FileManager.default.fileExists(atPath: path) {
            guard access(path, R_OK) == 0 else {
                throw StoreStartError(reason: .unreadable, path: path, detail: String(cString: strerror(errno)))
            }
            guard access(path, W_OK) == 0 else {
                throw StoreStartError(reason: .readOnly, path: path, detail: String(cString: strerror(errno)))
            }
        }
        // SQLite creates the WAL and shared-memory files beside the store.
        guard access(directory, W_OK | X_OK) == 0 else {
            throw StoreStartError(reason: .readOnly, path: path, detail: "directory \(directory): \(String(cString: strerror(errno)))")
        }
    }

    /// The start error for what opening, migrating or checking the store threw.
    static func startError(_ error: any Error, path: String) -> StoreStartError {
        if let error = error as? StoreStartError { return error }
        guard let error = error as? DatabaseError else {
            return StoreStartError(reason: .unusable, path: path, detail: "\(error)")
        }
        let detail = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        switch error.resultCode.primaryResultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: return StoreStartError(reason: .corrupt, path: path, detail: detail)
        case .SQLITE_READONLY: return StoreStartError(reason: .readOnly, path: path, detail: detail)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH: return StoreStartError(reason: .unreadable, path: path, detail: detail)
        default: return StoreStartError(reason: .unusable, path: path, detail: detail)
        }
    }

    /// `PRAGMA quick_check` (the cheap part of integrity_check: every page and record is read)
    /// on a read-only connection, before anything (such as switching to WAL) writes to the file:
    /// a damaged store is refused at start, unchanged, rather than found out on a later read.
    static func quickCheck(_ path: String) throws {
        guard let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size > 0 else { return }
        var configuration = Configuration()
        configuration.readonly = true
        let answers = try DatabaseQueue(path: path, configuration: configuration).read { db in
            try String.fetchAll(db, sql: "PRAGMA quick_check")
        }
        guard answers == ["ok"] else {
            throw StoreStartError(reason: .corrupt, path: path, detail: "quick_check: \(answers.prefix(3).joined(separator: "; "))")
        }
    }
}
