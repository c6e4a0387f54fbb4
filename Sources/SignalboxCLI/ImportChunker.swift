/// Cuts a file's bytes into request bodies of at most `limit` bytes, each ending at a record
/// boundary: an LF for NDJSON; for CSV an LF outside quotes, with the header record repeated at
/// the start of every body after the first, as the server reads each body as a whole file.
///
/// Lines are counted as the server counts them (every LF, blank lines and LFs inside quoted
/// cells included), so each chunk's `lineOffset` maps the server's line numbers to the file's.
struct ImportChunker {
    private static let lineFeed = UInt8(ascii: "\n")
    private static let quote = UInt8(ascii: "\"")

    let format: ImportFormat
    let limit: Int
    /// Bytes read but not yet sent.
    private var pending: [UInt8] = []
    /// How much of `pending` has been scanned, and the LFs in that part.
    private var scanned = 0
    private var linesScanned = 0
    /// The end of the last complete record in `pending` (0: none yet), and the LFs before it.
    private var lastBoundary = 0
    private var linesBeforeBoundary = 0
    /// The LFs of the file before `pending`.
    private var linesSent = 0
    private var insideQuotes = false
    private var sentAny = false
    /// The CSV header record with its line end, and the LFs in it (more than 1 if a cell spans lines).
    private var header: [UInt8]?
    private var headerLines = 0

    init(format: ImportFormat, limit: Int) {
        self.format = format
        self.limit = limit
    }

    /// Takes the next bytes of the file; returns the bodies they complete.
    mutating func append(_ bytes: [UInt8]) throws(ImportFailure) -> [ImportChunk] {
        pending.append(contentsOf: bytes)
        var chunks: [ImportChunk] = []
        while scanned < pending.count {
            if scanned >= budget {
                guard lastBoundary > 0 else {
                    let line = linesSent + linesScanned + 1
                    throw .unreadable("line \(line): \(header == nil && format == .csv ? "the header" : "a record") is longer than one request (--chunk-mib)")
                }
                chunks.append(cut(at: lastBoundary, lines: linesBeforeBoundary))
                continue
            }
            let byte = pending[scanned]
            scanned += 1
            if byte == Self.quote && format == .csv {
                insideQuotes.toggle()  // a doubled quote toggles twice: still inside
            } else if byte == Self.lineFeed {
                linesScanned += 1
                if !insideQuotes {
                    lastBoundary = scanned
                    linesBeforeBoundary = linesScanned
                    if format == .csv && header == nil {
                        header = Array(pending[0..<scanned])
                        headerLines = linesScanned
                    }
                }
            }
        }
        return chunks
    }

    /// The last body: what remains after the file's end, unless it is only blank space.
    mutating func finish() -> ImportChunk? {
        let blank: Set<UInt8> = [0x20, 0x09, 0x0D, 0x0A]
        guard pending.contains(where: { !blank.contains($0) }) else { return nil }
        return cut(at: pending.count, lines: linesScanned)
    }

    /// Room for records in the body being filled: a repeated header takes its share.
    private var budget: Int {
        guard sentAny, let header else { return limit }
        return limit - header.count
    }

    private mutating func cut(at end: Int, lines: Int) -> ImportChunk {
        var chunk = ImportChunk(body: Array(pending[0..<end]), lineOffset: linesSent)
        if sentAny, let header {
            chunk.body.insert(contentsOf: header, at: 0)
            chunk.lineOffset -= headerLines
        }
        sentAny = true
        pending.removeFirst(end)
        linesSent += lines
        scanned -= end
        linesScanned -= lines
        lastBoundary = 0
        linesBeforeBoundary = 0
        return chunk
    }
}
