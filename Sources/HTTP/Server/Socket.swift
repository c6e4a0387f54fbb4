#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed socket call: the function's name and `errno`.
public struct SocketError: Error, CustomStringConvertible, Sendable {
    public let function: String
    public let errno: Int32

    public var description: String {
        "\(function) failed (errno \(errno))"
    }
}

/// Thin wrappers over the POSIX socket calls the server needs.
enum Socket {
    /// Binds a non-blocking listening socket to `host:port` (IPv4 or IPv6,
    /// a literal address or a name); port 0 asks the kernel for a free port.
    /// Returns the descriptor and the port actually bound.
    static func listen(host: String, port: Int, backlog: Int32) throws -> (fd: Int32, port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw SocketError(function: "getaddrinfo(\(host)) status \(status)", errno: 0)
        }
        defer { freeaddrinfo(list) }

        let info = first.pointee
        let fd = socket(info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(function: "socket", errno: errno) }
        do {
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            if info.ai_family == AF_INET6 {
                // "::" serves IPv4 clients too (mapped addresses).
                try setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 0)
            }
            guard bind(fd, info.ai_addr, info.ai_addrlen) == 0 else { throw SocketError(function: "bind", errno: errno) }
            guard systemListen(fd, backlog) == 0 else { throw SocketError(function: "listen", errno: errno) }
            return (fd, try localPort(fd))
        } catch {
            close(fd)
            throw error
        }
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) throws {
        var value = value
        guard setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw SocketError(function: "setsockopt(\(name))", errno: errno)
        }
    }

    static func localPort(_ fd: Int32) throws -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw SocketError(function: "getsockname", errno: errno) }
        return address(of: storage).port
    }

    enum AcceptResult {
        case accepted(fd: Int32, remote: String)
        /// Nothing pending, or a failure that concerns only that connection.
        case none
        /// Out of descriptors or memory: retrying at once would spin.
        case exhausted(errno: Int32)
    }

    /// Accepts one pending connection as a close-on-exec, non-blocking socket with `TCP_NODELAY`.
    static func accept(_ listener: Int32) -> AcceptResult {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { systemAcceptNonBlocking(listener, $0, &length) }
        }
        guard fd >= 0 else {
            let error = errno
            return [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error) ? .exhausted(errno: error) : .none
        }
        try? setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        return .accepted(fd: fd, remote: address(of: storage).host)
    }

    private static func string(_ cString: [CChar]) -> String {
        String(decoding: cString.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The printable host and the port of a socket address.
    static func address(of storage: sockaddr_storage) -> (host: String, port: Int) {
        var storage = storage
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var ip = address.pointee.sin_addr
                    inet_ntop(AF_INET, &ip, &buffer, socklen_t(buffer.count))
                    return (string(buffer), Int(UInt16(bigEndian: address.pointee.sin_port)))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var ip = address.pointee.sin6_addr
                    inet_ntop(AF_INET6, &ip, &buffer, socklen_t(buffer.count))
                    return (string(buffer), Int(UInt16(bigEndian: address.pointee.sin6_port)))
                }
            }
        default:
            return ("unknown", 0)
        }
    }

    /// The number of CPUs this process may run on (honours `taskset`): the
    /// bits of `Cpus_allowed` in /proc/self/status, else the online CPUs.
    static func usableCoreCount() -> Int {
        let online = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        guard let file = fopen("/proc/self/status", "r") else { return online }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("Cpus_allowed:") else { continue }
            let count = text.dropFirst("Cpus_allowed:".count).reduce(0) { sum, character in
                sum + (character.hexDigitValue?.nonzeroBitCount ?? 0)
            }
            return count > 0 ? min(count, online) : online
        }
        return online
    }
}
