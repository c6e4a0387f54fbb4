import Base
import Dispatch

/// Shutdown's first step: a wait of `shutdown.notReadyDelay` that a second signal cuts short
/// (an operator who presses Ctrl-C twice, or a test, does not wait it out).
final class NotReadyPeriod: Sendable {
    private enum State {
        case pending
        case waiting(CheckedContinuation<Void, Never>)
        case over
    }

    private let state = Locked(State.pending)

    /// Returns after `seconds`, or at once when ``end()`` was called (before or meanwhile).
    func wait(seconds: Double) async {
        guard seconds > 0 else { return end() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let over = state.withLock { state -> Bool in
                guard case .pending = state else { return true }
                state = .waiting(continuation)
                return false
            }
            if over { return continuation.resume() }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { self.end() }
        }
    }

    /// Ends the wait now (and any later one at once).
    func end() {
        let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state = .over }
            if case .waiting(let continuation) = state { return continuation }
            return nil
        }
        waiting?.resume()
    }
}
