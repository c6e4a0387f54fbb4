/// One event of a stream, its fields as sent.
public struct TestEvent: Sendable, Equatable {
    public var id: String?
    public var event: String?
    /// The `data` lines joined with newlines.
    public var data: String

    public init(id: String? = nil, event: String? = nil, data: String) {
        self.id = id
        self.event = event
        self.data = data
    }

    /// The event of one block of the stream (its lines up to the blank line); nil for a block
    /// of comments only (a heartbeat), which a client does not dispatch.
    init?(block: some Sequence<UInt8>) {
        var dataLines: [String] = []
        var hasField = false
        // Bytes, not Characters: "\r\n" is one Character, and a line may end in either.
        for var line in Array(block).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard line.first != UInt8(ascii: ":") else { continue }
            hasField = true
            let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
            var value = colon < line.endIndex ? line[(colon + 1)...] : []
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
            let text = String(decoding: value, as: UTF8.self)
            switch String(decoding: line[..<colon], as: UTF8.self) {
            case "id": id = text
            case "event": event = text
            case "data": dataLines.append(text)
            default: break
            }
        }
        guard hasField else { return nil }
        data = dataLines.joined(separator: "\n")
    }
}
