import HTTP
import HTTPTypes

/// The in-process transport: each request is handed to the routes through a `TestChannel`,
/// the stand-in for a connection.
struct InProcessClient: Sendable {
    let routes: RouteTable

    func execute(_ method: HTTPRequest.Method, _ target: String, headerFields: HTTPFields, body: [UInt8]) async throws -> TestResponse {
        let channel = TestChannel()
        // A cancelled request is a client that goes away: the route's work is disposed.
        return try await withTaskCancellationHandler {
            let outputs = channel.start(Request.test(method, target, headerFields: headerFields, body: body), on: routes)
            var head: Response?
            var events: [UInt8] = []
            for await output in outputs {
                switch output {
                case .response(let response):
                    // As on the wire: the answer to HEAD has the GET route's fields, not its body.
                    return TestResponse(status: response.status, headerFields: response.headerFields, body: method == .head ? [] : response.body)
                case .streamHead(let response): head = response
                case .event(let event): events += event.block
                }
            }
            try Task.checkCancellation()
            // A stream that ended: its head, and its events as the body.
            guard let head else { throw TestClientError("the route answered nothing") }
            return TestResponse(status: head.status, headerFields: head.headerFields, body: events)
        } onCancel: {
            channel.cancel()
        }
    }

    func stream(_ target: String, headerFields: HTTPFields) async throws -> TestEventStream {
        let channel = TestChannel()
        var outputs = channel.start(Request.test(.get, target, headerFields: headerFields), on: routes).makeAsyncIterator()
        let first = await outputs.next()
        // The head is sent in the same turn of the channel's queue as the route subscribes to
        // its stream; once that turn is over, whatever the test publishes next is delivered.
        await channel.settle()
        let head: TestResponse
        switch first {
        case .response(let response), .streamHead(let response): head = TestResponse(response)
        case .event, nil: throw TestClientError("the route answered no head")
        }
        return TestEventStream(head: head, source: .inProcess(channel, outputs))
    }
}
