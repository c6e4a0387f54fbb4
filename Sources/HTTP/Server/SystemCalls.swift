#if canImport(Glibc)
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

func systemAccept(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?) -> Int32 {
    accept(fd, address, length)
}
