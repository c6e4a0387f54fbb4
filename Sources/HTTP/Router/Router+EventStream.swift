import HTTPTypes
import Rx

extension Router {
    /// Adds a route whose handler returns a `Signal` or a `Driver` of events
    /// (`ServerSentEvent`s, encoded per client, or `EncodedEvent`s, encoded once and shared):
    /// the client gets a `text/event-stream` with every element the trait
    /// delivers while it is connected (a `Driver` starts with its current
    /// value), comment heartbeats when quiet, and the end of the stream when
    /// the trait completes. A client that disconnects or falls too far behind
    /// disposes its subscription at once.
    public func on<Strategy: SharingStrategyProtocol & SendableMetatype, Event: ServerSentEventConvertible>(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping @Sendable (Request) throws -> SharedSequence<Strategy, Event>) {
        add(method, path) { request, sink in
            // Built on the worker's queue and delivering there: one hop from the
            // source to the socket, and no serial queue of its own per client.
            let built = sink.run { try SharingScheduler.building(deliveringOn: sink.eventScheduler) { try handler(request) } }
            guard let events = built else { return }
            sink.startStream(EventStream.head)
            guard request.method != .head else { return }
            let subscription = events.asObservable().subscribe(
                onNext: { sink.send($0.encodedEvent) },
                onError: { _ in sink.finish() },
                onCompleted: { sink.finish() }
            )
            sink.onCancel { subscription.dispose() }
        }
    }
}

extension Router {
    /// GET (and HEAD) `path`; the handler's `Signal` or `Driver` is streamed as server-sent events.
    public func get<Strategy: SharingStrategyProtocol & SendableMetatype, Event: ServerSentEventConvertible>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> SharedSequence<Strategy, Event>) { on(.get, path, handler) }
    /// POST `path`; the handler's `Signal` or `Driver` is streamed as server-sent events.
    public func post<Strategy: SharingStrategyProtocol & SendableMetatype, Event: ServerSentEventConvertible>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> SharedSequence<Strategy, Event>) { on(.post, path, handler) }
    /// PUT `path`; the handler's `Signal` or `Driver` is streamed as server-sent events.
    public func put<Strategy: SharingStrategyProtocol & SendableMetatype, Event: ServerSentEventConvertible>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> SharedSequence<Strategy, Event>) { on(.put, path, handler) }
    /// DELETE `path`; the handler's `Signal` or `Driver` is streamed as server-sent events.
    public func delete<Strategy: SharingStrategyProtocol & SendableMetatype, Event: ServerSentEventConvertible>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> SharedSequence<Strategy, Event>) { on(.delete, path, handler) }
    /// PATCH `path`; the handler's `Signal` or `Driver` is streamed as server-sent events.
    public func patch<Strategy: SharingStrategyProtocol & SendableMetatype, Event: ServerSentEventConvertible>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> SharedSequence<Strategy, Event>) { on(.patch, path, handler) }
    /// HEAD (GET routes already answer HEAD) `path`; the handler's `Signal` or `Driver` is streamed as server-sent events.
    public func head<Strategy: SharingStrategyProtocol & SendableMetatype, Event: ServerSentEventConvertible>(_ path: String, _ handler: @escaping @Sendable (Request) throws -> SharedSequence<Strategy, Event>) { on(.head, path, handler) }
}
