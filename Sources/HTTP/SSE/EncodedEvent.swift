/// A server-sent event in its wire form, encoded once and shared by every
/// client that receives it.
///
/// The bytes are kept as one HTTP/1.1 chunk (`<size>\r\n<event>\r\n`), so a
/// chunked event stream writes them to the socket as they are: no per-client
/// encoding, framing or copy. Immutable, so any thread may hold it.
public final class EncodedEvent: Sendable, Equatable {
    /// `<size>\r\n<event block>\r\n`.
    let chunk: [UInt8]
    /// Where the event block starts in `chunk`.
    private let blockStart: Int

    /// Encodes `event` once.
    public convenience init(_ event: ServerSentEvent) {
        self.init(block: event.encoded)
    }

    /// Wraps an event block already in wire form (`field: value` lines ending
    /// with a blank line), as `ServerSentEvent.encoded` makes it.
    public init(block: [UInt8]) {
        var chunk: [UInt8] = []
        chunk.reserveCapacity(block.count + 12)
        chunk.append(hex: block.count)
        chunk.append(UInt8(ascii: "\r"))
        chunk.append(UInt8(ascii: "\n"))
        blockStart = chunk.count
        chunk.append(contentsOf: block)
        chunk.append(UInt8(ascii: "\r"))
        chunk.append(UInt8(ascii: "\n"))
        self.chunk = chunk
    }

    /// The event block, without chunk framing.
    public var block: ArraySlice<UInt8> { chunk[blockStart..<(chunk.count - 2)] }

    public static func == (lhs: EncodedEvent, rhs: EncodedEvent) -> Bool {
        lhs === rhs || lhs.chunk == rhs.chunk
    }
}

/// What an event-stream route streams: a `ServerSentEvent` (encoded for each
/// client) or an `EncodedEvent` (encoded once, its bytes shared).
public protocol ServerSentEventConvertible: Sendable {
    /// The event in wire form.
    var encodedEvent: EncodedEvent { get }
}

extension ServerSentEvent: ServerSentEventConvertible {
    public var encodedEvent: EncodedEvent { EncodedEvent(self) }
}

extension EncodedEvent: ServerSentEventConvertible {
    public var encodedEvent: EncodedEvent { self }
}
