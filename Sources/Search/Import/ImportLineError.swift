/// Why one line (NDJSON) or record (CSV) of an import cannot be used; the rest of the import
/// goes on. `line` is 1-based (a CSV record's is the line where it starts).
public struct ImportLineError: Error, Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var message: String

    public init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}
