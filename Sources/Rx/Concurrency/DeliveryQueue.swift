#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Serializes the deliveries of a subject (or share connection) without holding its lock
/// while observers run, as RxSwift delivers outside its locks.
///
/// The thread that finds the queue idle becomes its owner and delivers; an event that
/// another thread sends meanwhile is queued and delivered by the owner after the current
/// one, in order, so events to one observer never overlap and concurrent `on` calls stay
/// serialized. A call from the owner's own thread (an observer feeding the same subject)
/// is delivered at once, nested, as in RxSwift. Nothing waits on a lock held across a
/// delivery, so an observer that waits for another thread reading the subject's value,
/// or sending into the subject, can't deadlock it.
///
/// Every method is called with the owner's lock held.
struct DeliveryQueue<Element> {
    private var owner: pthread_t?
    private var pending: Queue<Event<Element>>?

    enum Entry {
        /// The caller owns the queue: deliver, then drain with `next()`.
        case owner
        /// The caller's thread is already delivering: deliver at once, don't drain.
        case nested
        /// Another thread is delivering: the event was queued for it.
        case queued
    }

    /// Whether no thread is delivering.
    var isIdle: Bool { owner == nil }

    /// Makes the calling thread the owner of an idle queue.
    mutating func own() {
        owner = pthread_self()
    }

    /// Decides who delivers `event`.
    mutating func enter(_ event: @autoclosure () -> Event<Element>) -> Entry {
        guard let owner else {
            self.owner = pthread_self()
            return .owner
        }
        if pthread_equal(owner, pthread_self()) != 0 {
            return .nested
        }
        if pending == nil { pending = Queue(capacity: 4) }
        pending!.enqueue(event())
        return .queued
    }

    /// The owner's next queued event; `nil` (and the queue idle) when there is none.
    mutating func next() -> Event<Element>? {
        if let event = pending?.dequeue() {
            return event
        }
        owner = nil
        return nil
    }

    /// Drops queued events and makes the queue idle (after a terminal event or disposal).
    mutating func finish() {
        pending = nil
        owner = nil
    }
}
