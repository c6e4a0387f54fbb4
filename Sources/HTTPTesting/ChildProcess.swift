import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A command-line tool run by a test (curl, openssl, psql), off Swift's cooperative pool: the
/// blocking wait for the child runs on a thread of its own, so a slow child (a sanitized run,
/// a busy machine) does not hold one of the pool's few threads, which every other test's
/// servers and clients need meanwhile.
///
/// popen(3), not Foundation's `Process`: its child monitoring hangs now and then while Swift
/// Testing runs tests on the pool (`waitUntilExit` never returns).
public enum ChildProcess {
    /// What a finished child left: its exit status and standard output (with standard error
    /// when `mergingErrors`).
    public struct Result: Sendable {
        public let status: Int32
        public let output: String
    }

    /// Runs `executable` with `arguments` and waits for it to exit, off the pool.
    public static func run(_ executable: String, _ arguments: [String], mergingErrors: Bool = true) async -> Result {
        await withCheckedContinuation { continuation in
            // A queue of its own, not `DispatchQueue.global()`: on Linux that is the pool the
            // tasks run on (as wide as the cores), and a blocked wait there takes a task's thread.
            DispatchQueue(label: "signalbox.testing.child-process").async {
                continuation.resume(returning: runBlocking(executable, arguments, mergingErrors: mergingErrors))
            }
        }
    }

    private static func runBlocking(_ executable: String, _ arguments: [String], mergingErrors: Bool) -> Result {
        // Each word single-quoted for the shell, a quote inside as '\''.
        let quoted = ([executable] + arguments).map { word in
            "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
        }
        let command = quoted.joined(separator: " ") + (mergingErrors ? " 2>&1" : " 2>/dev/null")
        guard let pipe = popen(command, "r") else { return Result(status: 127, output: "popen failed") }
        var output = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count == 0 { break }
            output += buffer[0..<count]
        }
        let status = pclose(pipe)
        return Result(status: (status >> 8) & 0xff, output: String(decoding: output, as: UTF8.self))
    }
}
