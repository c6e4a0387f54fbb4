import Dispatch
@testable import HTTP
import HTTPTesting
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing

/// The worker's poller on its own, over a socket pair: edge-triggered readiness reaches the
/// given queue, a reset peer is reported, and an unwatched socket is not.
@Suite("Poller", .timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct PollerTests {
    private final class Watch: Sendable {
        let stream: AsyncStream<Readiness>
        let poller: Poller
        let queue = DispatchQueue(label: "poller-test")

        init() {
            let (stream, continuation) = AsyncStream.makeStream(of: Readiness.self)
            self.stream = stream
            poller = Poller(name: "poller-test", queue: queue) { batch in
                for readiness in batch { continuation.yield(readiness) }
            }
        }
    }

    private func socketPair() -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        #if canImport(Darwin)
        let type = SOCK_STREAM
        #else
        let type = Int32(SOCK_STREAM.rawValue)
        #endif
        precondition(socketpair(AF_UNIX, type, 0, &ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        return (ends[0], ends[1])
    }

    @Test func bytesFromThePeerMakeTheSocketReadableAndItsCloseIsReported() async throws {
        let watch = Watch()
        let (ours, peer) = socketPair()
        defer { close(ours) }
        watch.poller.watch(ours)
        var events = watch.stream.makeAsyncIterator()
        // Writable at once (an edge on registration), and not readable.
        let first = try #require(await events.next())
        #expect(first.fd == ours && first.writable && !first.readable)

        _ = write(peer, "hello", 5)
        var next = try #require(await events.next())
        #expect(next.fd == ours && next.readable)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(read(ours, &buffer, 16) == 5)

        close(peer)
        next = try #require(await events.next())
        #expect(next.fd == ours && next.readable)  // the read that follows returns 0
        #expect(read(ours, &buffer, 16) == 0)
        watch.poller.stop()
    }

    @Test func anUnwatchedSocketIsNotReported() async throws {
        let watch = Watch()
        let (quiet, quietPeer) = socketPair()
        let (loud, loudPeer) = socketPair()
        defer { for fd in [quiet, quietPeer, loud, loudPeer] { close(fd) } }
        watch.poller.watch(quiet)
        watch.poller.watch(loud)
        var events = watch.stream.makeAsyncIterator()
        // Both report their first writability; then only `loud` stays watched.
        var registered: Set<Int32> = []
        while registered.count < 2 { registered.insert(try #require(await events.next()).fd) }
        watch.poller.unwatch(quiet)
        _ = write(quietPeer, "x", 1)
        _ = write(loudPeer, "y", 1)
        let next = try #require(await events.next())
        #expect(next.fd == loud && next.readable)
        watch.poller.stop()
    }
}
