import Rx

/// A `Signal` or a `Driver` of events (`ServerSentEvent`s, encoded per client, or
/// `EncodedEvent`s, encoded once and shared) answers with a `text/event-stream`: every
/// element the trait delivers while the client is connected (a `Driver` starts with its
/// current value), comment heartbeats when quiet, and the end of the stream when the trait
/// completes. A client that disconnects or falls too far behind disposes its subscription.
extension SharedSequence: ResponseGenerator where Element: ServerSentEventConvertible {
    /// Built on the worker's queue and delivering there: one hop from the source to the
    /// socket, and no serial queue of its own per client.
    public static var buildsOnConnectionQueue: Bool { true }

    public func reply(to request: Request) -> Reply {
        let events = asObservable()
        return .subscribing { sink in
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
