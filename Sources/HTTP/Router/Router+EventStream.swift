import HTTPTypes
import Rx

extension Router {
    /// Adds a route whose handler returns a `Signal` or a `Driver` of events:
    /// the client gets a `text/event-stream` with every element the trait
    /// delivers while it is connected (a `Driver` starts with its current
    /// value), comment heartbeats when quiet, and the end of the stream when
    /// the trait completes. A client that disconnects or falls too far behind
    /// disposes its subscription at once.
    public func on<Strategy: SharingStrategyProtocol & SendableMetatype>(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping @Sendable (Request) throws -> SharedSequence<Strategy, ServerSentEvent>) {
        add(method, path) { request, sink in
            guard let events = sink.run({ try handler(request) }) else { return }
            sink.startStream(EventStream.head)
            guard request.method != .head else { return }
            let subscription = events.asObservable().subscribe(
                onNext: { sink.send($0.encoded) },
                onError: { _ in sink.finish() },
                onCompleted: { sink.finish() }
            )
            sink.onCancel { subscription.dispose() }
        }
    }
}

extension Router {
    /// GET (and HEAD) `path`; the handler's `Signal` or `Driver` is streamed as server-sent events.
    public func get<Strategy: SharingStrategyProtocol & SendableMetatype>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> SharedSequence<Strategy, ServerSentEvent>) { on(.get, path, handler) }
    /// POST `path`; the handler's `Signal` or `Driver` is streamed as server-sent events.
    public func post<Strategy: SharingStrategyProtocol & SendableMetatype>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> SharedSequence<Strategy, ServerSentEvent>) { on(.post, path, handler) }
    /// PUT `path`; the handler's `Signal` or `Driver` is streamed as server-sent events.
    public func put<Strategy: SharingStrategyProtocol & SendableMetatype>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> SharedSequence<Strategy, ServerSentEvent>) { on(.put, path, handler) }
    /// DELETE `path`; the handler's `Signal` or `Driver` is streamed as server-sent events.
    public func delete<Strategy: SharingStrategyProtocol & SendableMetatype>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> SharedSequence<Strategy, ServerSentEvent>) { on(.delete, path, handler) }
    /// PATCH `path`; the handler's `Signal` or `Driver` is streamed as server-sent events.
    public func patch<Strategy: SharingStrategyProtocol & SendableMetatype>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> SharedSequence<Strategy, ServerSentEvent>) { on(.patch, path, handler) }
    /// HEAD (GET routes already answer HEAD) `path`; the handler's `Signal` or `Driver` is streamed as server-sent events.
    public func head<Strategy: SharingStrategyProtocol & SendableMetatype>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> SharedSequence<Strategy, ServerSentEvent>) { on(.head, path, handler) }
}
