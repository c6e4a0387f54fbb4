import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HTTP
import Logging
import Rx
import Search
import Testing
@testable import Signalbox

/// `GET /events` over real sockets on a two-worker server: clients that connect
/// (fresh, or resuming) while changes are being applied each get every change
/// from their start on, once, in order, whichever worker serves them.
@Suite struct EventEndpointsTests {
    static let lastChange: Int64 = 40

    @Test func clientsConnectingWhileChangesArriveGetEachChangeOnceInOrder() async throws {
        let index = SearchIndex(documents: [])
        let feed = EventEndpoints.Feed(lastSequence: 0, capacity: 100)
        let lookups = SearchLookups(index: index, maxEntries: 10, ttl: 60, metrics: ServiceMetrics())
        let applier = ChangeApplier(index: index, lookups: lookups, feed: feed, metrics: ServiceMetrics(), applied: 0)
        let router = Router()
        EventEndpoints(feed: feed, applier: applier, epoch: "e1", resumeWait: .seconds(5)).register(on: router)
        var logger = Logger(label: "test.events")
        logger.logLevel = .error
        let server = HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, workerCount: 2), router: router, logger: logger)
        let port = try server.start()

        func apply(_ sequence: Int64) {
            applier.offer([ChangeApplier.Change(sequence: sequence, id: "d\(sequence)", document: Document(id: "d\(sequence)", name: "Town \(sequence)"), body: nil)])
        }
        for sequence in Int64(1)...4 { apply(sequence) }
        await Self.applied(applier, 4)

        // Fresh clients, and resumes missing several changes (their own chain) or one (the worker's).
        var clients: [(socket: RawClient, resumedAfter: Int64?)] = []
        var next: Int64 = 5
        for number in 0..<24 {
            let resumedAfter: Int64? = number % 3 == 0 ? nil : (number % 3 == 1 ? 1 : 3)
            let lastEventID = resumedAfter.map { "Last-Event-ID: \($0)\r\n" } ?? ""
            let client = try RawClient(port: port)
            try client.send("GET /events HTTP/1.1\r\nHost: x\r\n\(lastEventID)\r\n")
            clients.append((client, resumedAfter))
            if next <= Self.lastChange { apply(next); next += 1 }  // while the client is being subscribed
        }
        while next <= Self.lastChange { apply(next); next += 1 }

        for (client, resumedAfter) in clients {
            let ids = try client.eventIDs(through: Self.lastChange)
            let first = try #require(ids.first)
            #expect(ids == Array(first...Self.lastChange), "ids \(ids)")
            if let resumedAfter { #expect(first == resumedAfter + 1, "resumed after \(resumedAfter): ids \(ids)") }
            client.close()
        }
        #expect(feed.sharedSubscriptionCount >= 1 && feed.sharedSubscriptionCount <= 2)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Completes when `applier` has applied `sequence`.
    static func applied(_ applier: ChangeApplier, _ sequence: Int64) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = applier.applied.asObservable().filter { $0 >= sequence }.take(1)
                .subscribe(onCompleted: { done.resume() })
        }
    }
}

/// A blocking loopback client that reads an event stream's ids (`id: N` lines).
private final class RawClient {
    let fd: Int32
    private var received = ""

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard systemSend(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw POSIXError(.EIO) }
    }

    /// The ids of the stream's blocks, in order, until `last` has come (or the read times out).
    func eventIDs(through last: Int64) throws -> [Int64] {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let ids = received.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).compactMap { line in
                line.hasPrefix("id: ") ? Int64(line.dropFirst(4)) : nil
            }
            if ids.last == last { return ids }
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { throw StreamEnded(ids: ids, text: received) }
            received += String(decoding: buffer[..<count], as: UTF8.self)
        }
    }

    func close() { systemClose(fd) }

    /// The stream ended or went quiet before the last id; what came until then.
    struct StreamEnded: Error { let ids: [Int64]; let text: String }
}

// The C calls under other names: the client's own `send` and `close` shadow them.
private func systemSend(_ fd: Int32, _ bytes: [UInt8], _ count: Int, _ flags: Int32) -> Int {
    send(fd, bytes, count, flags)
}

private func systemClose(_ fd: Int32) {
    close(fd)
}
