import Rx

/// A `Signal` or a `Driver` of events (`ServerSentEvent`s, encoded per client, or
/// `EncodedEvent`s, encoded once and shared) answers with a `text/event-stream`: every
/// element the trait delivers while the client is connected (a `Driver` starts with its
/// current value), comment heartbeats when quiet, and the end of the stream when the trait
/// completes. A client that disconnects or falls too far behind disposes its subscription.
///
/// Events that arrive on the connection's queue are written there and then; others hop onto
/// it. A handler that builds its stream inside
/// `SharingScheduler.building(deliveringOn: request.eventScheduler)` gets the first kind.
extension SharedSequence: ResponseGenerator where Element: ServerSentEventConvertible {
    public func reply(to request: Request) -> Reply { .eventStream(asObservable(), for: request) }
}

/// An `Infallible` of events answers as a `Signal` does, with no share of its own: the
/// stream of one client that is its own view of a shared `Signal` (where it resumes, what
/// it filters out). A share per client would cost a delivery queue and a lock per event and
/// give nothing: only that client subscribes.
extension Infallible: ResponseGenerator where Element: ServerSentEventConvertible {
    public func reply(to request: Request) -> Reply { .eventStream(asObservable(), for: request) }
}

extension Reply {
    /// A `text/event-stream` of `events`' elements, ended when they complete or fail.
    static func eventStream<Element: ServerSentEventConvertible>(_ events: Observable<Element>, for request: Request) -> Reply {
        .subscribing { sink in
            sink.startStream(EventStream.head)
            guard request.method != .head else { return Disposables.create() }
            return events.subscribe(
                onNext: { sink.send($0.encodedEvent) },
                onError: { _ in sink.finish() },
                onCompleted: { sink.finish() }
            )
        }
    }
}
