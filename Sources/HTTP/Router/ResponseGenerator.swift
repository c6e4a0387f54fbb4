import Rx

/// What a route's handler may return: one protocol for every kind of answer, so the router
/// has one registration path (the role of Hummingbird's `ResponseGenerator`).
///
/// | handler returns | the client sees |
/// |---|---|
/// | `T: ResponseEncodable` (`Response`, `String`, any `Encodable`) | 200 with `T` encoded, at once |
/// | `Single<T>` | 200 with `T` encoded, or the problem response for its error |
/// | `Maybe<T>` | 200 with `T`, or 404 when it completes empty |
/// | `Completable` | 204 |
/// | `Signal<E>`, `Driver<E>` of server-sent events | a `text/event-stream` |
/// | `Infallible<E>` of server-sent events | the same, for one client's own view of a shared stream |
///
/// Only this module makes a `Reply`; a type of your own conforms by returning the reply of
/// one of these.
public protocol ResponseGenerator: SendableMetatype {
    /// How this value answers `request`. A thrown error is answered with its problem response.
    func reply(to request: Request) throws -> Reply
}

/// How a handler's value answers a request: a response now, or work that answers later
/// through the request's sink.
public struct Reply: Sendable {
    enum Kind: Sendable {
        case response(Response)
        /// Subscribes through the sink (on the connection's queue); the subscription ends when
        /// the client goes away.
        case subscription(@Sendable (ResponseSink) -> any Disposable)
    }

    let kind: Kind

    static func now(_ response: Response) -> Reply { Reply(kind: .response(response)) }

    /// `subscribe` starts the trait's work; the subscription ends when the client goes away.
    static func subscribing(_ subscribe: @escaping @Sendable (ResponseSink) -> any Disposable) -> Reply {
        Reply(kind: .subscription(subscribe))
    }

    func answer(through sink: ResponseSink) {
        switch kind {
        case .response(let response): sink.respond(response)
        case .subscription(let subscribe):
            let subscription = subscribe(sink)
            sink.onCancel { subscription.dispose() }
        }
    }
}

extension ResponseEncodable {
    public func reply(to request: Request) throws -> Reply { .now(try response()) }
}

extension ResponseSink {
    /// Answers with `value` encoded (on the calling thread), or with the
    /// problem response if encoding fails.
    func respond(encoding value: some ResponseEncodable) {
        do {
            respond(try value.response())
        } catch {
            fail(error)
        }
    }
}
