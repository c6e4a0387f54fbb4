import Foundation

/// What `signalbox import` shows as it goes: on a terminal one line redrawn in place (bytes
/// read of the total, documents/s, errors so far); otherwise a plain line per request, for logs.
/// Failed lines go to standard error either way.
final class ImportProgress {
    /// Least time between two redraws of the terminal line.
    static let redrawInterval: Duration = .milliseconds(100)

    let onTerminal: Bool
    private let totalBytes: Int
    private let started = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?
    private var lineShown = false
    private(set) var bytesRead = 0
    private(set) var imported = 0
    private(set) var failed = 0
    private(set) var requests = 0

    init(totalBytes: Int, onTerminal: Bool = isatty(STDOUT_FILENO) == 1) {
        self.totalBytes = totalBytes
        self.onTerminal = onTerminal
    }

    func read(_ bytes: Int) {
        bytesRead += bytes
        redraw()
    }

    /// One request answered: its counts, and its failed lines with the file's line numbers.
    func answered(file: String, bodyBytes: Int, answer: ImportAnswer, lineOffset: Int) {
        requests += 1
        imported += answer.created + answer.updated
        failed += answer.failed
        for error in answer.errors {
            let id = error.id.map { " (id \($0))" } ?? ""
            printError("\(file):\(error.line + lineOffset): \(error.status) \(error.detail)\(id)")
        }
        if answer.failed > answer.errors.count {
            printError("\(file): \(answer.failed - answer.errors.count) more failed lines in this request (the server lists the first \(answer.errors.count))")
        }
        if onTerminal {
            redraw(force: true)
        } else {
            output("\(file): request \(requests): \(bodyBytes) bytes, \(answer.created) created, \(answer.updated) updated, \(answer.failed) failed; \(summary)\n")
        }
    }

    /// The closing line.
    func finish() {
        if onTerminal { clearLine() }
        output("imported \(imported) documents, \(failed) failed, in \(requests) requests; \(summary)\n")
    }

    /// Writes a line to standard error without breaking the terminal line.
    func printError(_ text: String) {
        if onTerminal { clearLine() }
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Writes a line to standard output without breaking the terminal line.
    func note(_ text: String) {
        if onTerminal { clearLine() }
        output(text + "\n")
    }

    private var summary: String {
        let seconds = max((ContinuousClock.now - started) / .seconds(1), 0.001)
        return "\(Self.megabytes(bytesRead))/\(Self.megabytes(totalBytes)) MB read, \(Int(Double(imported) / seconds)) documents/s, \(failed) errors so far"
    }

    private func redraw(force: Bool = false) {
        guard onTerminal else { return }
        let now = ContinuousClock.now
        if !force, let lastDrawn, now - lastDrawn < Self.redrawInterval { return }
        lastDrawn = now
        let fraction = totalBytes > 0 ? Double(bytesRead) / Double(totalBytes) : 1
        let width = 24
        let filled = min(width, Int(fraction * Double(width)))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        // CR and "erase line" redraw in place.
        output("\r\u{1B}[K[\(bar)] \(summary)")
        lineShown = true
    }

    private func clearLine() {
        guard lineShown else { return }
        output("\r\u{1B}[K")
        lineShown = false
    }

    /// Unbuffered, so the terminal line and the lines on standard error come in order.
    private func output(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f", Double(bytes) / 1_000_000)
    }
}
