import Dispatch
import HTTP
import HTTPTypes
import Rx

extension Router {
    /// A client that sends requests straight to this router's routes, gates included: no
    /// socket, parser or server, so a test of an endpoint is a request in and a response (or
    /// an event stream) out. Register the routes first; the client sees them as they are then.
    public func testClient() -> RouterTestClient { RouterTestClient(routes: table()) }
}

/// Requests to a router, in process (the role of HummingbirdTesting's router client).
public struct RouterTestClient: Sendable {
    let routes: RouteTable

    /// Answers one request; waits for a trait's answer however long it takes.
    /// `target` is a path with an optional query (`/search?q=paris`).
    public func execute(
        _ method: HTTPRequest.Method = .get, _ target: String, headerFields: HTTPFields = [:], body: [UInt8] = []
    ) async -> TestResponse {
        let channel = TestChannel()
        let events = channel.start(Self.request(method, target, headerFields, body), on: routes)
        var head: Response?
        var stream: [EncodedEvent] = []
        for await output in events {
            switch output {
            case .response(let response): return TestResponse(response)
            case .streamHead(let response): head = response
            case .event(let event): stream.append(event)
            }
        }
        // A stream that ended: its head, and the events as the body.
        var response = head ?? Response(status: .internalServerError)
        response.body = stream.flatMap { Array($0.block) }
        return TestResponse(response)
    }

    /// Opens an event stream: its response head, then its events as they come. The stream is
    /// cancelled (the route's subscription disposed) when the returned value is dropped or
    /// `cancel()`ed, as when a client disconnects.
    public func stream(_ target: String, headerFields: HTTPFields = [:]) async -> TestEventStream {
        let channel = TestChannel()
        var outputs = channel.start(Self.request(.get, target, headerFields, []), on: routes).makeAsyncIterator()
        let first = await outputs.next()
        // The head is sent in the same turn of the channel's queue as the route subscribes to
        // its stream; once that turn is over, whatever the test publishes next is delivered.
        await channel.settle()
        return TestEventStream(channel: channel, first: first, rest: outputs)
    }

    static func request(_ method: HTTPRequest.Method, _ target: String, _ fields: HTTPFields, _ body: [UInt8]) -> Request {
        Request(head: HTTPRequest(method: method, scheme: nil, authority: "test", path: target, headerFields: fields), body: body)
    }
}

/// A complete response, as the route made it (the server adds `Date`, `Content-Length`, ...).
public struct TestResponse: Sendable {
    public let status: HTTPResponse.Status
    public let headerFields: HTTPFields
    public let body: [UInt8]

    init(_ response: Response) {
        status = response.status
        headerFields = response.headerFields
        body = response.body
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

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

    init(block: ArraySlice<UInt8>) {
        var dataLines: [Substring] = []
        for line in String(decoding: block, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else { continue }
            var value = line[line.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
            switch line[..<colon] {
            case "id": id = String(value)
            case "event": event = String(value)
            case "data": dataLines.append(value)
            default: break
            }
        }
        data = dataLines.joined(separator: "\n")
    }
}

/// An open event stream: the head (or the error response that answered instead), then events.
public final class TestEventStream: @unchecked Sendable {
    // @unchecked: a stream belongs to the test that opened it, one task at a time.
    private let channel: TestChannel
    private var rest: AsyncStream<TestChannel.Output>.Iterator
    /// The response head (`text/event-stream`), or the whole response when the route answered
    /// with a problem instead of a stream.
    public let head: TestResponse

    init(channel: TestChannel, first: TestChannel.Output?, rest: AsyncStream<TestChannel.Output>.Iterator) {
        self.channel = channel
        self.rest = rest
        switch first {
        case .response(let response), .streamHead(let response): head = TestResponse(response)
        case .event, nil: head = TestResponse(Response(status: .internalServerError))
        }
    }

    deinit { channel.cancel() }

    /// The next event, or nil once the stream has ended.
    public func next() async -> TestEvent? {
        while let output = await rest.next() {
            if case .event(let event) = output { return TestEvent(block: event.block) }
        }
        return nil
    }

    /// The next `count` events (fewer if the stream ends first).
    public func next(_ count: Int) async -> [TestEvent] {
        var events: [TestEvent] = []
        while events.count < count, let event = await next() { events.append(event) }
        return events
    }

    /// Disconnects, as a client that goes away: the route's subscription is disposed.
    public func cancel() { channel.cancel() }
}
