@testable import HTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing

/// The listener's socket calls over a real loopback connection.
@Suite struct SocketTests {
    /// An accepted socket is born close-on-exec (a child process started meanwhile, as tests and
    /// the cluster's tools start psql or PostgreSQL, must not keep the client's connection open)
    /// and non-blocking (the poller reads it edge-triggered, to `EAGAIN`).
    @Test func anAcceptedSocketIsCloseOnExecAndNonBlocking() throws {
        let (listener, port) = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 4)
        defer { systemClose(listener) }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(client >= 0)
        defer { systemClose(client) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        // The connection is queued once connect returns (loopback): one accept takes it.
        guard case .accepted(let accepted, let remote) = Socket.accept(listener) else {
            Issue.record("the pending connection was not accepted")
            return
        }
        defer { systemClose(accepted) }
        #expect(remote == "127.0.0.1")
        #expect(fcntl(accepted, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(accepted, F_GETFL) & O_NONBLOCK != 0)
        // Nothing else is pending: the non-blocking listener answers at once.
        guard case .none = Socket.accept(listener) else {
            Issue.record("a second connection was accepted")
            return
        }
    }
}
