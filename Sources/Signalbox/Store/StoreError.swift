/// Why a store could not commit a write; the endpoint edge maps each to its status.
enum StoreError: Error, Sendable, CustomStringConvertible {
    /// The store cannot be reached, or did not answer in time (503 with `Retry-After`).
    /// The write may or may not have been committed; retrying a PUT is safe.
    case unavailable(detail: String)
    /// The disk is full: the write was not made durable (507).
    case full(detail: String)

    var description: String {
        switch self {
        case .unavailable(let detail): "store unavailable: \(detail)"
        case .full(let detail): "store full: \(detail)"
        }
    }
}

/// Why a store cannot be opened: the start stops with this one line.
enum StoreStartError: Error, Sendable, CustomStringConvertible {
    /// The database's schema was made by a newer Signalbox.
    case schemaTooNew(found: Int, known: Int)
    /// This replica's base data set is not the one the cluster was created with.
    case baseDataDiffers(stored: String, local: String)

    var description: String {
        switch self {
        case .schemaTooNew(let found, let known):
            "the PostgreSQL schema is version \(found), newer than this signalbox knows (\(known)): upgrade this replica"
        case .baseDataDiffers(let stored, let local):
            "this replica's base data set (digest \(local)) differs from the cluster's (digest \(stored)): "
                + "every replica must serve the same --data file (or all the embedded cities)"
        }
    }
}
