import Base
import Rx

/// The handle a responder uses to answer one request, from any thread.
///
/// Calls made on the connection's worker queue act at once; calls from other
/// threads hop onto it, in order. Only the first final answer counts. When
/// the connection goes away (peer closed, timeout, shutdown) the registered
/// cancellation runs at once, exactly once.
package final class ResponseSink: @unchecked Sendable {
    private let channel: any ResponseChannel
    /// Touched only on the channel's queue.
    let exchange: Exchange
    private let cancellation = Locked<Cancellation>(.none)

    private enum Cancellation {
        case none
        case registered(@Sendable () -> Void)
        case cancelled
    }

    package init(channel: any ResponseChannel, exchange: Exchange) {
        self.channel = channel
        self.exchange = exchange
    }

    /// Runs `body` on the channel's queue: at once when already there, else in order later.
    private func perform(_ body: @escaping @Sendable (any ResponseChannel) -> Void) {
        if channel.isCurrent {
            body(channel)
        } else {
            channel.enqueue { [channel] in body(channel) }
        }
    }

    /// Runs `body` on the connection's worker queue (at once when already there), where
    /// handlers run: a handler held by a gate resumes there, not on the gate's thread.
    func onQueue(_ body: @escaping @Sendable () -> Void) {
        perform { _ in body() }
    }

    /// Records the route pattern; call on the worker queue, before answering.
    func setRoute(_ pattern: String, id: Int) {
        exchange.route = pattern
        exchange.routeID = id
    }

    /// Answers with a complete response.
    func respond(_ response: Response) {
        perform { $0.respond(response, to: self.exchange) }
    }

    /// Runs a handler; a thrown error is answered as a problem response.
    func run<T>(_ handler: () throws -> T) -> T? {
        do {
            return try handler()
        } catch {
            fail(error)
            return nil
        }
    }

    /// Answers with the problem response for `error`.
    func fail(_ error: any Error) {
        let instance = exchange.head?.request.path
        respond(ProblemDetails.response(for: error, instance: instance))
    }

    /// Starts a streamed response with `head`'s status and fields (its body is ignored).
    func startStream(_ head: Response) {
        perform { $0.startStream(head, for: self.exchange) }
    }

    /// The serial scheduler of the channel's queue: event streams built for
    /// this response deliver there, so their events need no further hop.
    var eventScheduler: any SchedulerType { channel.eventScheduler }

    /// Sends the next event of a streamed response (its shared bytes, not a copy).
    func send(_ event: EncodedEvent) {
        // On the channel's queue (every event of a stream built by the router): no closure to allocate.
        if channel.isCurrent {
            channel.sendEvent(event, for: exchange)
        } else {
            perform { $0.sendEvent(event, for: self.exchange) }
        }
    }

    /// Ends a streamed response.
    func finish() {
        perform { $0.finishStream(self.exchange) }
    }

    /// Registers the work to stop when the connection goes away; runs it at
    /// once if it already has.
    func onCancel(_ action: @escaping @Sendable () -> Void) {
        let runNow = cancellation.withLock { state -> Bool in
            if case .cancelled = state { return true }
            state = .registered(action)
            return false
        }
        if runNow { action() }
    }

    /// Stops the registered work; later registrations run at once.
    package func cancel() {
        let action = cancellation.withLock { state -> (@Sendable () -> Void)? in
            defer { state = .cancelled }
            if case .registered(let action) = state { return action }
            return nil
        }
        action?()
    }

    /// Forgets the registered work without running it (the answer is complete).
    package func release() {
        cancellation.withLock { state in
            if case .registered = state { state = .none }
        }
    }
}

/// Where a sink's answers go: a connection, or an in-process test client. The four
/// answering methods run on the channel's serial queue.
package protocol ResponseChannel: AnyObject, Sendable {
    /// Whether the caller runs on the channel's queue.
    var isCurrent: Bool { get }
    /// Runs `work` on the channel's queue, after what is already queued.
    func enqueue(_ work: @escaping @Sendable () -> Void)
    /// The serial scheduler of the channel's queue.
    var eventScheduler: any SchedulerType { get }
    func respond(_ response: Response, to exchange: Exchange)
    func startStream(_ head: Response, for exchange: Exchange)
    func sendEvent(_ event: EncodedEvent, for exchange: Exchange)
    func finishStream(_ exchange: Exchange)
}

/// What answers requests: the router, or a test's stand-in.
package protocol RequestResponder: Sendable {
    /// Starts answering `request` through `sink`. Called on the connection's
    /// worker queue; may answer before returning.
    func respond(to request: Request, sink: ResponseSink)
    /// Methods allowed for `OPTIONS *`.
    var allowedMethods: [String] { get }
}
