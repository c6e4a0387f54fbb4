#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Sends `bytes` on `descriptor` at once, on the calling thread (where a test must not
/// suspend: inside a worker's queue). Returns what `send` returned.
func systemSend(_ descriptor: Int32, _ bytes: [UInt8]) -> Int {
    bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
}
