import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Long or blocking work on a named thread of its own: an index merge, a schema's re-index, a
/// start's index build. Never on the pool Swift's tasks run on (as wide as the cores: two threads
/// here, where every request's answer runs), nor on `DispatchQueue.global()`, whose workers the
/// work's own `concurrentPerform`s borrow: there it held them for seconds (a write waited 30 s).
///
/// The thread carries its name twice: as the system's thread name, for gdb and top (Linux keeps
/// 15 bytes of it), and as a thread-specific marker, ``currentName``, by which tests check that
/// the work ran where it should.
public enum OwnThread {
    /// Most bytes of a name the system keeps (Linux: 16 with the terminating zero).
    public static let maxNameBytes = 15

    /// Starts `work` on a new thread named `name` and returns at once.
    public static func start(name: String, _ work: @escaping @Sendable () -> Void) {
        precondition(name.utf8.count <= maxNameBytes, "a thread name of more than \(maxNameBytes) bytes is cut")
        let thread = Thread {
            _ = pthread_setspecific(nameKey, strdup(name))
            nameThisThread(name)
            work()
        }
        thread.start()
    }

    /// Runs `work` on a new thread named `name` and returns what it returns (or throws what it
    /// throws), leaving the caller's thread (a task's) free meanwhile.
    public static func run<Value: Sendable>(name: String, _ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            start(name: name) { continuation.resume(with: Result { try work() }) }
        }
    }

    /// The name of the own thread the caller runs on; nil on any other thread.
    public static var currentName: String? {
        pthread_getspecific(nameKey).map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
    }

    /// Gives the calling thread the system name `name`. Not through Foundation's `Thread.name`:
    /// on Linux its setter applies a name only once `start()` has stored the new thread's
    /// handle, and the new thread can get there first (then it kept its creator's name, a pool
    /// thread's, twice in three runs under ThreadSanitizer); glibc's `pthread_setname_np` is not
    /// in Swift's Glibc module.
    private static func nameThisThread(_ name: String) {
        #if os(Linux)
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }  // no /proc: the name only helps gdb and top
        _ = name.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        #elseif canImport(Darwin)
        _ = pthread_setname_np(name)
        #endif
    }

    /// One key for every own thread: its value is the thread's name (a C string, freed when the
    /// thread ends).
    private static let nameKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, { free($0) }) == 0, "no thread-specific key left")
        return key
    }()
}
