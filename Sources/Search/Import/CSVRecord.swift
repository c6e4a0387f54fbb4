/// One record of a CSV import: its cells (unquoted, unescaped bytes) and the line it starts on.
public struct CSVRecord: Sendable, Hashable {
    /// The 1-based line of the file where the record starts.
    public var line: Int
    /// The cells' bytes, one after the other.
    private var bytes: [UInt8]
    /// Where each cell ends in `bytes`.
    private var ends: [Int]

    init(line: Int, bytes: [UInt8], ends: [Int]) {
        self.line = line
        self.bytes = bytes
        self.ends = ends
    }

    public init(line: Int, cells: [String]) {
        self.line = line
        bytes = []
        ends = []
        for cell in cells {
            bytes.append(contentsOf: cell.utf8)
            ends.append(bytes.count)
        }
    }

    /// How many cells.
    public var count: Int { ends.count }

    /// The bytes of cell `index`.
    public subscript(index: Int) -> ArraySlice<UInt8> {
        bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]]
    }

    /// Cell `index` as text (invalid UTF-8 repaired).
    public func string(at index: Int) -> String {
        String(decoding: self[index], as: UTF8.self)
    }

    /// Every cell as text.
    public var strings: [String] { (0..<count).map(string(at:)) }
}
