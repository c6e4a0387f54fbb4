/// What a file holds, as the server's import endpoint names it by `Content-Type`.
enum ImportFormat: String, CaseIterable, Sendable {
    case ndjson
    case csv

    var contentType: String {
        switch self {
        case .ndjson: "application/x-ndjson"
        case .csv: "text/csv"
        }
    }

    /// The format a file's name says (`.ndjson`, `.jsonl`, `.csv`, each optionally `.gz`), if any.
    init?(fileName: String) {
        var name = fileName.lowercased()
        if name.hasSuffix(".gz") { name.removeLast(3) }
        if name.hasSuffix(".ndjson") || name.hasSuffix(".jsonl") {
            self = .ndjson
        } else if name.hasSuffix(".csv") {
            self = .csv
        } else {
            return nil
        }
    }

    static func isGzipped(fileName: String) -> Bool {
        fileName.lowercased().hasSuffix(".gz")
    }
}
