import Base
import Dispatch
import Foundation
import Testing

/// `OwnThread` runs work on a new thread that carries its name, as the system's thread name and
/// as the marker tests read (`currentName`); nowhere else does the marker show.
@Suite struct OwnThreadTests {
    /// The system's name of the calling thread (Linux).
    static func systemName() -> String? {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    @Test func runReturnsTheValueFromANamedThreadOfItsOwn() async throws {
        let (name, systemName) = try await OwnThread.run(name: "own-run") { (OwnThread.currentName, Self.systemName()) }
        #expect(name == "own-run")
        #expect(systemName == "own-run")  // what gdb and top show
        #expect(OwnThread.currentName == nil)
        #expect(Self.systemName() != "own-run")
    }

    @Test func runThrowsWhatTheWorkThrows() async {
        struct Refused: Error, Equatable {}
        await #expect(throws: Refused.self) {
            try await OwnThread.run(name: "own-throw") { () throws -> Int in throw Refused() }
        }
    }

    /// Two threads of two names run at once (each holds until both have read their marker):
    /// each reads its own name, and the test's thread none.
    @Test func eachThreadReadsItsOwnName() async throws {
        let started = DispatchGroup()
        let names = Locked<[String: String?]>([:])
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for name in ["own-a", "own-b"] {
            started.enter()
            done.enter()
            OwnThread.start(name: name) {
                names.withLock { $0[name] = OwnThread.currentName }
                started.leave()
                release.wait()
                done.leave()
            }
        }
        try await OwnThread.run(name: "own-waiter") {
            started.wait()  // both threads run now, neither has ended
            #expect(names.withLock { $0 } == ["own-a": "own-a", "own-b": "own-b"])
            release.signal()
            release.signal()
            done.wait()
        }
        #expect(OwnThread.currentName == nil)
    }

    /// Every thread gets its system name from the start, none its creator's: Foundation's
    /// `Thread.name`, set on the new thread, was lost when the thread ran before `start()`
    /// had stored its handle (7 to 15 of 300 threads here, 111 to 123 under ThreadSanitizer).
    @Test func everyThreadHasItsSystemName() async throws {
        let wrong = Locked<[String]>([])
        let done = DispatchGroup()
        for n in 0..<200 {
            done.enter()
            OwnThread.start(name: "own-\(n % 10)") {
                let name = Self.systemName()
                if name != "own-\(n % 10)" { wrong.withLock { $0.append(name ?? "none") } }
                done.leave()
            }
        }
        try await OwnThread.run(name: "own-waiter") { done.wait() }
        #expect(wrong.withLock { $0 } == [])
    }
}
