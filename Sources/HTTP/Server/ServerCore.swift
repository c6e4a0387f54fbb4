import Base
import Logging
import Synchronization

/// State shared by the listener and every worker of one server.
final class ServerCore: Sendable {
    let configuration: ServerConfiguration
    let responder: any RequestResponder
    let logger: Logger
    let gauges = ServerGauges()
    /// Prefix of generated request IDs, random per server.
    let requestIDPrefix: [UInt8]
    let settings: Locked<ServerSettings>
    let openConnections = Atomic<Int>(0)
    /// Open connections per address, for `maxConnectionsPerClient`.
    let clientConnections = ClientConnections()
    let streamingClients = Atomic<Int>(0)
    let draining = Atomic<Bool>(false)
    /// The TLS context new connections of the HTTPS listener use; replaced on reload.
    let tlsContext = Locked<TLSContext?>(nil)
    private let idleWaiters = Locked<[CheckedContinuation<Void, Never>]>([])
    /// Waiting for every open connection to be an event stream (shutdown's first step).
    private let streamsOnlyWaiters = Locked<[CheckedContinuation<Void, Never>]>([])

    init(configuration: ServerConfiguration, responder: any RequestResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.settings = Locked(configuration.settings)
        self.requestIDPrefix = Array((String(UInt32.random(in: .min ... .max), radix: 36) + "-").utf8)
    }

    func connectionOpened() {
        let count = openConnections.add(1, ordering: .relaxed).newValue
        gauges.openConnections.record(count)
    }

    func connectionClosed(remote: String) {
        clientConnections.close(remote)
        let count = openConnections.subtract(1, ordering: .acquiringAndReleasing).newValue
        gauges.openConnections.record(count)
        if count == 0 { resumeIdleWaiters() }
        resumeStreamsOnlyWaitersIfDone()
    }

    func streamOpened() {
        gauges.sseClients.record(streamingClients.add(1, ordering: .acquiringAndReleasing).newValue)
        resumeStreamsOnlyWaitersIfDone()
    }
    func streamClosed() { gauges.sseClients.record(streamingClients.subtract(1, ordering: .relaxed).newValue) }

    /// Returns once no connection is open.
    func waitUntilNoConnections() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            idleWaiters.withLock { $0.append(continuation) }
            if openConnections.load(ordering: .acquiring) == 0 { resumeIdleWaiters() }
        }
    }

    /// Returns once every open connection is an event stream: the requests in flight are answered.
    func waitUntilOnlyStreams() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            streamsOnlyWaiters.withLock { $0.append(continuation) }
            resumeStreamsOnlyWaitersIfDone()
        }
    }

    private func resumeStreamsOnlyWaitersIfDone() {
        guard openConnections.load(ordering: .acquiring) <= streamingClients.load(ordering: .acquiring) else { return }
        let waiters = streamsOnlyWaiters.withLock { waiters in
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func resumeIdleWaiters() {
        let waiters = idleWaiters.withLock { waiters in
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
