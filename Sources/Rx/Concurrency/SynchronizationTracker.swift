#if DEBUG
import Foundation

/// Debug builds: warns, as RxSwift does, when an observer is sent an event while it is
/// still handling the previous one, on the same thread (reentrancy) or on another
/// (concurrent `onNext`). Both break the grammar's promise that events don't overlap.
final class SynchronizationTracker: @unchecked Sendable {
    // `@unchecked`: `threads` is guarded by `lock`.
    private let lock = NSLock()
    private var threads: [ObjectIdentifier: Int] = [:]

    func register() {
        let thread = ObjectIdentifier(Thread.current)
        let (count, threadCount): (Int, Int) = lock.withLock {
            let count = (threads[thread] ?? 0) + 1
            threads[thread] = count
            return (count, threads.count)
        }
        if count > 1 {
            print("""
            ⚠️ Reentrancy anomaly was detected.
              > Debugging: To debug this issue you can set a breakpoint in \(#file):\(#line) and observe the call stack.
              > Problem: This behavior is breaking the observable sequence grammar. `next (error | completed)?`
                This behavior breaks the grammar because there is overlapping between sequence events.
                Observable sequence is trying to send an event before sending of previous event has finished.
              > Interpretation: This could mean that there is some kind of unexpected cyclic dependency in your code,
                or that the system is not behaving in the expected way.
              > Remedy: If this is the expected behavior this message can be suppressed by adding `.observe(on:MainScheduler.asyncInstance)`
                or by enqueuing sequence events in some other way.
            """)
        }
        if threadCount > 1 {
            print("""
            ⚠️ Synchronization anomaly was detected.
              > Debugging: To debug this issue you can set a breakpoint in \(#file):\(#line) and observe the call stack.
              > Problem: This behavior is breaking the observable sequence grammar. `next (error | completed)?`
                This behavior breaks the grammar because there is overlapping between sequence events.
                Observable sequence is trying to send an event before sending of previous event has finished.
              > Interpretation: Two different unsynchronized threads are trying to send some event simultaneously.
                This is undefined behavior for the operator grammar and can cause undefined behavior and crash.
              > Remedy: Serialize the calls (send from one serial scheduler, or push through a subject, which serializes).
            """)
        }
    }

    func unregister() {
        let thread = ObjectIdentifier(Thread.current)
        lock.withLock {
            let count = (threads[thread] ?? 1) - 1
            threads[thread] = count == 0 ? nil : count
        }
    }
}
#endif
