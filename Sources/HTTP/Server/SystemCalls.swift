#if canImport(Glibc)
import CEpoll
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The C library's calls under names of their own, for the types that have members of the same
// name (`Socket.listen`/`accept`, `Connection.close`): there an unqualified call would find the
// member, and a qualified one (`Glibc.close`) names one platform. At file scope the unqualified
// names are the C library's on every platform.

@discardableResult
func systemClose(_ fd: Int32) -> Int32 { close(fd) }

func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }

/// Accepts a connection as a close-on-exec, non-blocking socket: in one call where the C library
/// has `accept4` (Linux), so that no fork between the accept and the flags leaks the socket into
/// a child (a child that kept it would hold the connection open after the server closed it).
func systemAcceptNonBlocking(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?) -> Int32 {
    #if canImport(Glibc)
    return accept4(fd, address, length, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
    #else
    let accepted = accept(fd, address, length)
    if accepted >= 0 {
        _ = fcntl(accepted, F_SETFL, fcntl(accepted, F_GETFL) | O_NONBLOCK)
        _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
    }
    return accepted
    #endif
}
