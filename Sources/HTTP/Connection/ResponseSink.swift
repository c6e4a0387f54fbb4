import Rx

/// The handle a responder uses to answer one request, from any thread.
///
/// Calls made on the connection's worker queue act at once; calls from other
/// threads hop onto it, in order. Only the first final answer counts. When
/// the connection goes away (peer closed, timeout, shutdown) the registered
/// cancellation runs at once, exactly once.
final class ResponseSink: @unchecked Sendable {
    private let connection: Connection
    /// Touched only on the connection's worker queue.
    let exchange: Exchange
    private let cancellation = Locked<Cancellation>(.none)

    private enum Cancellation {
        case none
        case registered(@Sendable () -> Void)
        case cancelled
    }

    init(connection: Connection, exchange: Exchange) {
        self.connection = connection
        self.exchange = exchange
    }

    /// Records the route pattern; call on the worker queue, before answering.
    func setRoute(_ pattern: String, id: Int) {
        exchange.route = pattern
        exchange.routeID = id
    }

    /// Answers with a complete response.
    func respond(_ response: Response) {
        connection.perform { $0.respond(response, to: self.exchange) }
    }

    /// Answers with `value` encoded (on the calling thread), or with the
    /// problem response if encoding fails.
    func respond(encoding value: some ResponseEncodable) {
        do {
            respond(try value.response())
        } catch {
            fail(error)
        }
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
        connection.perform { $0.startStream(head, for: self.exchange) }
    }

    /// The serial scheduler of the connection's worker: event streams built
    /// for this response deliver there, so their events need no further hop.
    var eventScheduler: any SchedulerType { connection.worker.eventScheduler }

    /// Sends the next event of a streamed response (its shared bytes, not a copy).
    func send(_ event: EncodedEvent) {
        // On the worker (every event of a stream built by the router): no closure to allocate.
        if connection.worker.isCurrent {
            connection.sendEvent(event, for: exchange)
        } else {
            connection.perform { $0.sendEvent(event, for: self.exchange) }
        }
    }

    /// Ends a streamed response.
    func finish() {
        connection.perform { $0.finishStream(self.exchange) }
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
    func cancel() {
        let action = cancellation.withLock { state -> (@Sendable () -> Void)? in
            defer { state = .cancelled }
            if case .registered(let action) = state { return action }
            return nil
        }
        action?()
    }

    /// Forgets the registered work without running it (the answer is complete).
    func release() {
        cancellation.withLock { state in
            if case .registered = state { state = .none }
        }
    }
}

/// What answers requests: the router, or a test's stand-in.
protocol RequestResponder: Sendable {
    /// Starts answering `request` through `sink`. Called on the connection's
    /// worker queue; may answer before returning.
    func respond(to request: Request, sink: ResponseSink)
    /// Methods allowed for `OPTIONS *`.
    var allowedMethods: [String] { get }
}
