import HTTP

/// An open event stream: the head (or the error response that answered instead), then its
/// events as they come. Dropping it or calling ``cancel()`` disconnects, as a client that
/// goes away: the route's subscription is disposed.
public final class TestEventStream: @unchecked Sendable {
    // @unchecked: a stream belongs to the test that opened it, one task at a time.
    enum Source {
        /// The in-process channel and what it delivers.
        case inProcess(TestChannel, AsyncStream<TestChannel.Output>.Iterator)
        /// The connection, after the head.
        case live(RawConnection)
        /// Answered without a stream: no events.
        case ended
    }

    private var source: Source
    /// The response head (`text/event-stream`), or the whole response when the route answered
    /// with a problem instead of a stream.
    public let head: TestResponse

    init(head: TestResponse, source: Source) {
        self.head = head
        self.source = source
    }

    deinit { cancel() }

    /// The next event, or nil once the stream has ended. Comment blocks (the live server's
    /// heartbeats) are skipped.
    public func next() async throws -> TestEvent? {
        switch source {
        case .inProcess(let channel, var outputs):
            defer { source = .inProcess(channel, outputs) }
            while let output = await outputs.next() {
                if case .event(let event) = output, let parsed = TestEvent(block: event.block) { return parsed }
            }
            return nil
        case .live(let connection):
            while let block = try await connection.readEventBlock() {
                if let event = TestEvent(block: block.utf8) { return event }
            }
            return nil
        case .ended:
            return nil
        }
    }

    /// The next `count` events (fewer if the stream ends first).
    public func next(_ count: Int) async throws -> [TestEvent] {
        var events: [TestEvent] = []
        while events.count < count, let event = try await next() { events.append(event) }
        return events
    }

    /// Disconnects, as a client that goes away: the route's subscription is disposed.
    public func cancel() {
        switch source {
        case .inProcess(let channel, _): channel.cancel()
        case .live(let connection): connection.disconnect()
        case .ended: break
        }
    }
}
