/// One event of a `text/event-stream` (HTML Living Standard, "Server-sent events").
///
/// `data` may span several lines; each becomes its own `data:` field, and the
/// client joins them with newlines again. CR and LF in `id` and `event` are
/// dropped, since they would end the field early.
public struct ServerSentEvent: Sendable, Hashable {
    /// The `id` field: the client sends it back as `Last-Event-ID` when it reconnects.
    public var id: String?
    /// The `event` field: the event's type (`message` when nil).
    public var event: String?
    /// The `data` field; may contain newlines.
    public var data: String
    /// The `retry` field: the client's reconnection delay in milliseconds.
    public var retry: Int?
    /// False for an event that only sets fields (no `data:` line), which clients do not dispatch.
    private var carriesData = true

    /// Creates an event.
    public init(id: String? = nil, event: String? = nil, data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }

    /// A block with only an `id` field: it sets the client's last event ID (sent back as
    /// `Last-Event-ID` when it reconnects) without dispatching an event, since it has no data.
    public static func lastEventID(_ id: String) -> ServerSentEvent {
        var event = ServerSentEvent(id: id, data: "")
        event.carriesData = false
        return event
    }

    /// The event's wire form, ending with the blank line that dispatches it.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.utf8.count + 32)
        if let id { Self.append(field: "id", value: Self.singleLine(id), to: &out) }
        if let event { Self.append(field: "event", value: Self.singleLine(event), to: &out) }
        if let retry { Self.append(field: "retry", value: String(retry), to: &out) }
        guard carriesData else {
            out.append(UInt8(ascii: "\n"))
            return out
        }
        // Split on CRLF, CR and LF alike, as the client does.
        var line: [UInt8] = []
        var previous: UInt8 = 0
        for byte in data.utf8 {
            if byte == UInt8(ascii: "\n") && previous == UInt8(ascii: "\r") {
                previous = byte
                continue
            }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                Self.append(field: "data", bytes: line, to: &out)
                line.removeAll(keepingCapacity: true)
            } else {
                line.append(byte)
            }
            previous = byte
        }
        Self.append(field: "data", bytes: line, to: &out)
        out.append(UInt8(ascii: "\n"))
        return out
    }

    /// A comment line, which clients ignore; keeps proxies and idle timers from closing the stream.
    static func comment(_ text: String) -> [UInt8] {
        Array(": \(singleLine(text))\n\n".utf8)
    }

    private static func singleLine(_ value: String) -> String {
        value.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            ? String(value.unicodeScalars.filter { $0 != "\n" && $0 != "\r" }) : value
    }

    private static func append(field: String, value: String, to out: inout [UInt8]) {
        append(field: field, bytes: Array(value.utf8), to: &out)
    }

    private static func append(field: String, bytes: [UInt8], to out: inout [UInt8]) {
        out.append(contentsOf: field.utf8)
        out.append(contentsOf: ": ".utf8)
        out.append(contentsOf: bytes)
        out.append(UInt8(ascii: "\n"))
    }
}
