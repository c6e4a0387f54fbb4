import ArgumentParser
import Foundation

/// `signalbox import`: streams NDJSON and CSV files (gzip too) to a running server's
/// `POST /collections/{name}/documents`, in requests of at most `--chunk-mib` cut at record
/// boundaries, and names each failed line by its file and line.
struct ImportCommand: ParsableCommand {
    /// The largest `--chunk-mib` taken; the server's own bound is `import.maxBytes` (256 MiB by default).
    static let maxChunkMiB = 1024

    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import NDJSON or CSV files (gzip too) into a collection of a running server.",
        // Parsed on its own (see SignalboxCommand.main), so its usage line names the whole command.
        usage: "signalbox import <files> ... --collection <name> [--schema <file>] [--url <url>] [--api-key <key>] [--format <format>] [--chunk-mib <mib>]",
        discussion: """
        Each file is sent in requests of at most --chunk-mib, cut at line boundaries (CSV: at record \
        boundaries, its header repeated in each request); errors name the file's own line. The format \
        comes from the name (.ndjson, .jsonl, .csv, each optionally .gz) unless --format says it. \
        With --schema, the collection is created (or its schema replaced) first.

        On a terminal a progress line is redrawn in place; otherwise one line is printed per request. \
        Failed lines go to standard error as FILE:LINE: STATUS DETAIL.

        Exit codes: 0 every line imported; 1 some lines failed (the others are imported); 2 usage \
        error; 3 the server cannot be reached; 4 the server answered an error (its detail is printed); \
        5 a file cannot be read.
        """
    )

    @Argument(help: "NDJSON or CSV files to import, optionally gzipped (.gz).") var files: [String] = []
    @Option(help: "Collection to import into.") var collection: String
    @Option(help: "Schema JSON file: PUT to /collections/NAME before the import (creates or replaces it).")
    var schema: String?
    @Option(help: "The server's base URL (http only).") var url = "http://127.0.0.1:8080"
    @Option(help: "Bearer key for writes (default: SIGNALBOX_API_KEY).") var apiKey: String?
    @Option(help: "File format when the name does not say: ndjson or csv.") var format: ImportFormat?
    @Option(help: "Largest request body, in MiB (1-\(ImportCommand.maxChunkMiB)); at most the server's import.maxBytes.")
    var chunkMib = 64

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("name at least one file to import") }
        guard Self.isCollectionName(collection) else {
            throw ValidationError("--collection must match [a-z0-9][a-z0-9_-]{0,63}, got \(collection)")
        }
        guard (1...Self.maxChunkMiB).contains(chunkMib) else {
            throw ValidationError("--chunk-mib must be between 1 and \(Self.maxChunkMiB), got \(chunkMib)")
        }
        do { _ = try ServerAddress(parsing: url) } catch { throw ValidationError(error.description) }
        for file in files {
            guard format != nil || ImportFormat(fileName: file) != nil else {
                throw ValidationError("\(file): cannot tell the format from the name; use --format ndjson or --format csv")
            }
            guard access(file, R_OK) == 0 else {
                throw ValidationError("\(file): \(String(cString: strerror(errno)))")
            }
        }
        if let schema, access(schema, R_OK) != 0 {
            throw ValidationError("--schema \(schema): \(String(cString: strerror(errno)))")
        }
    }

    func run() throws {
        let address = try ServerAddress(parsing: url)
        let key = apiKey ?? ProcessInfo.processInfo.environment["SIGNALBOX_API_KEY"]
        let progress = ImportProgress(totalBytes: files.reduce(0) { $0 + Self.fileSize($1) })
        let importer = CollectionImporter(collection: collection, address: address, key: key, progress: progress)
        do {
            if let schema { try importer.putSchema(from: schema) }
            for file in files {
                try importer.importFile(
                    file, format: format ?? ImportFormat(fileName: file) ?? .ndjson,
                    gzipped: ImportFormat.isGzipped(fileName: file), chunkBytes: chunkMib << 20)
            }
        } catch {  // an ImportFailure: everything in the block throws only that
            progress.printError("signalbox import: \(error)")
            throw ExitCode(error.exitCode)
        }
        progress.finish()
        if progress.failed > 0 { throw ExitCode(1) }
    }

    static func isCollectionName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        func allowed(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard let first = bytes.first, allowed(first), bytes.count <= 64 else { return false }
        return bytes.dropFirst().allSatisfy { allowed($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    private static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}

extension ImportFormat: ExpressibleByArgument {}
