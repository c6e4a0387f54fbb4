import Foundation
import Rx

/// An observable whose elements are obtained by blocking the calling thread until the
/// sequence ends (RxSwift's `RxBlocking`). Meant for tests and scripts, not for serving
/// requests: a blocked thread can't do other work.
///
/// The calling thread waits on a semaphore. RxSwift spins the current run loop instead;
/// a server has none, so a sequence that needs the blocked thread itself to make progress
/// (say, one observed on a serial queue the caller is running on) can't finish, and ends
/// with `RxError.timeout` if a timeout was given.
public struct BlockingObservable<Element> {
    let timeout: TimeInterval?
    let source: Observable<Element>
}

/// What a blocking `materialize()` saw: the elements, and how the sequence ended.
public enum MaterializedSequenceResult<T> {
    /// The sequence completed after `elements`.
    case completed(elements: [T])
    /// The sequence failed with `error` after `elements`.
    case failed(elements: [T], error: Error)
}

extension BlockingObservable {
    /// The elements, once the sequence completes; throws its error.
    public func toArray() throws -> [Element] {
        let result = run { _, _ in false }
        if let error = result.error { throw error }
        return result.elements
    }

    /// The first element (or `nil` if it completes empty); stops at the first element.
    public func first() throws -> Element? {
        let result = run { _, _ in true }
        if let error = result.error { throw error }
        return result.elements.first
    }

    /// The last element (or `nil` if it completes empty), once the sequence completes.
    public func last() throws -> Element? {
        let result = run { _, _ in false }
        if let error = result.error { throw error }
        return result.elements.last
    }

    /// The only element; throws `RxError.noElements` or `RxError.moreThanOneElement`.
    public func single() throws -> Element {
        try single { _ in true }
    }

    /// The only element satisfying `predicate`; throws `RxError.noElements` or
    /// `RxError.moreThanOneElement` (at once, on the second match).
    public func single(_ predicate: @escaping (Element) throws -> Bool) throws -> Element {
        var matches: [Element] = []
        var failure: Error?
        let result = run { element, _ in
            do {
                if try predicate(element) {
                    matches.append(element)
                }
            } catch {
                failure = error
                return true
            }
            if matches.count > 1 {
                failure = RxError.moreThanOneElement
                return true
            }
            return false
        }
        if let error = failure ?? result.error { throw error }
        guard let element = matches.first else { throw RxError.noElements }
        return element
    }

    /// The elements and how the sequence ended, without throwing.
    public func materialize() -> MaterializedSequenceResult<Element> {
        let result = run { _, _ in false }
        if let error = result.error {
            return .failed(elements: result.elements, error: error)
        }
        return .completed(elements: result.elements)
    }

    /// Subscribes and blocks until the sequence ends, `stop` returns `true` for an element,
    /// or the timeout passes.
    private func run(stop: @escaping (Element, Int) -> Bool) -> (elements: [Element], error: Error?) {
        let state = BlockingState<Element>()
        let subscription = SingleAssignmentDisposable()
        let subscribe = {
            subscription.setDisposable(source.subscribe { event in
                switch event {
                case .next(let element):
                    let index = state.append(element)
                    if stop(element, index) {
                        state.finish(nil)
                        subscription.dispose()
                    }
                case .error(let error):
                    state.finish(error)
                case .completed:
                    state.finish(nil)
                }
            })
        }
        if CurrentThreadScheduler.isScheduleRequired {
            // Inside a trampoline, as RxSwift's RxBlocking: a source that emits recursively
            // on the current thread (`repeatElement`) continues after `subscribe` returns,
            // so `first()` can dispose it.
            _ = CurrentThreadScheduler.instance.schedule(()) { _ in
                subscribe()
                return Disposables.create()
            }
        } else {
            subscribe()
        }
        let finished: Bool
        if let timeout {
            finished = state.done.wait(timeout: .now() + timeout) == .success
        } else {
            state.done.wait()
            finished = true
        }
        subscription.dispose()
        if !finished {
            state.finish(RxError.timeout)
        }
        return state.result
    }
}

/// The elements and the end of a blocking subscription, shared with the emitting thread.
private final class BlockingState<Element>: @unchecked Sendable {
    // `@unchecked`: `elements` and `ended` are guarded by `lock`.
    let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var elements: [Element] = []
    private var error: Error?
    private var ended = false

    /// Appends `element` unless the wait has ended; returns its index.
    func append(_ element: Element) -> Int {
        lock.withLock {
            if ended { return elements.count }
            elements.append(element)
            return elements.count - 1
        }
    }

    /// Ends the wait (once) with `error`, or success.
    func finish(_ error: Error?) {
        let first: Bool = lock.withLock {
            if ended { return false }
            ended = true
            self.error = error
            return true
        }
        if first { done.signal() }
    }

    var result: (elements: [Element], error: Error?) {
        lock.withLock { (elements, error) }
    }
}
