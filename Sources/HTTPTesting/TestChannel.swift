import Dispatch
import HTTP
import Rx

/// The in-process stand-in for a connection: a serial queue the route's answer arrives on,
/// handed to the test as an `AsyncStream`.
final class TestChannel: ResponseChannel, @unchecked Sendable {
    // @unchecked: `sink` and `continuation` are touched only on `queue`.
    enum Output: Sendable {
        case response(Response)
        case streamHead(Response)
        case event(EncodedEvent)
    }

    private static let key = DispatchSpecificKey<ObjectIdentifier>()
    private let queue = DispatchQueue(label: "signalbox.http.test-channel")
    let eventScheduler: any SchedulerType
    private var continuation: AsyncStream<Output>.Continuation?
    private var sink: ResponseSink?

    init() {
        eventScheduler = SerialDispatchQueueScheduler(queue: queue, internalSerialQueueName: "signalbox.http.test-channel.events")
        queue.setSpecific(key: Self.key, value: ObjectIdentifier(self))
    }

    /// Hands `request` to `routes` on the channel's queue; the outputs follow.
    func start(_ request: Request, on routes: RouteTable) -> AsyncStream<Output> {
        let (outputs, continuation) = AsyncStream.makeStream(of: Output.self)
        queue.async { [self] in
            self.continuation = continuation
            let sink = ResponseSink(channel: self, exchange: Exchange(request: request.head, started: 0))
            self.sink = sink
            routes.respond(to: request, sink: sink)
        }
        return outputs
    }

    /// Returns once the work queued so far on the channel's queue has run.
    func settle() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
    }

    /// The client went away: the route's work is cancelled and nothing more is delivered.
    func cancel() {
        queue.async { [self] in
            sink?.cancel()
            sink = nil
            continuation?.finish()
            continuation = nil
        }
    }

    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.key) == ObjectIdentifier(self) }

    func enqueue(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }

    func respond(_ response: Response, to exchange: Exchange) {
        guard let continuation else { return }
        sink?.release()
        sink = nil
        continuation.yield(.response(response))
        continuation.finish()
        self.continuation = nil
    }

    func startStream(_ head: Response, for exchange: Exchange) {
        continuation?.yield(.streamHead(head))
    }

    func sendEvent(_ event: EncodedEvent, for exchange: Exchange) {
        continuation?.yield(.event(event))
    }

    func finishStream(_ exchange: Exchange) {
        sink?.cancel()
        sink = nil
        continuation?.finish()
        continuation = nil
    }
}
