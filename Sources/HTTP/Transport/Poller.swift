import Base
import Dispatch
#if canImport(Glibc)
import CEpoll
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a socket became ready for, as one poll reported it.
struct Readiness: Sendable {
    let fd: Int32
    var readable = false
    var writable = false
    /// The peer reset the connection or both directions are shut (`EPOLLHUP`/`EPOLLERR`, `EV_EOF` with an error).
    var hangup = false
    /// The peer closed its sending side (`EPOLLRDHUP`, `EV_EOF` on the read filter): after the
    /// bytes already received, a read returns the end of input.
    var inputClosed = false
}

/// Readiness of a worker's sockets: one epoll (kqueue on Darwin) instance and one thread
/// waiting on it, which hands each batch of events to the worker's queue in one hop.
///
/// Why not Dispatch read and write sources: on Linux their shared epoll bookkeeping is
/// unregistered from worker threads after a peer's reset (`EPOLLHUP`) while the manager
/// thread still uses it, and under connection churn that crashed the server inside
/// libdispatch ("Source finalized twice"; docs/robustness.md). Here a socket is watched
/// edge-triggered for reading and writing from when it is adopted until it is closed, both
/// done on the worker's queue, so there is nothing to re-arm per event and no state shared
/// with another thread but the kernel's.
final class Poller: Sendable {
    private let descriptors: Descriptors

    /// Starts the waiting thread, named `name` (at most ``OwnThread/maxNameBytes``); `deliver`
    /// runs on `queue` with each batch, in order.
    init(name: String, queue: DispatchQueue, deliver: @escaping @Sendable ([Readiness]) -> Void) {
        let descriptors = Descriptors()
        self.descriptors = descriptors
        Self.watch(descriptors.wakeRead, in: descriptors.poll)
        // The loop holds the descriptors too: they are closed when both it and the poller are gone.
        // On a thread of its own, not a Dispatch queue's: the loop blocks in the poll for the
        // server's life, and Dispatch has at most 255 threads for all its queues; a process with
        // that many pollers (the tests' servers, all at once) had none left to run any queue.
        OwnThread.start(name: name) {
            Self.run(descriptors, queue: queue, deliver: deliver)
        }
    }

    deinit { stop() }

    /// Watches `fd` for reading and writing (edge-triggered) until `unwatch` or its close.
    func watch(_ fd: Int32) { Self.watch(fd, in: descriptors.poll) }

    /// Stops watching `fd`; called before it is closed.
    func unwatch(_ fd: Int32) {
        #if canImport(Darwin)
        var changes = [Self.change(fd, filter: EVFILT_READ, flags: EV_DELETE), Self.change(fd, filter: EVFILT_WRITE, flags: EV_DELETE)]
        _ = kevent(descriptors.poll, &changes, Int32(changes.count), nil, 0, nil)
        #else
        _ = epoll_ctl(descriptors.poll, EPOLL_CTL_DEL, fd, nil)
        #endif
    }

    /// Ends the waiting thread; batches already handed over still run. Idempotent.
    func stop() {
        var byte: UInt8 = 1
        _ = write(descriptors.wakeWrite, &byte, 1)
    }

    private static func watch(_ fd: Int32, in poll: Int32) {
        #if canImport(Darwin)
        var changes = [
            change(fd, filter: EVFILT_READ, flags: EV_ADD | EV_CLEAR),
            change(fd, filter: EVFILT_WRITE, flags: EV_ADD | EV_CLEAR),
        ]
        _ = kevent(poll, &changes, Int32(changes.count), nil, 0, nil)
        #else
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
        event.data.fd = fd
        _ = epoll_ctl(poll, EPOLL_CTL_ADD, fd, &event)
        #endif
    }

    private static func run(_ descriptors: Descriptors, queue: DispatchQueue, deliver: @escaping @Sendable ([Readiness]) -> Void) {
        let capacity = 256
        #if canImport(Darwin)
        let events = UnsafeMutablePointer<kevent>.allocate(capacity: capacity)
        #else
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        #endif
        defer { events.deallocate() }
        let wakeRead = descriptors.wakeRead
        var running = true
        while running {
            #if canImport(Darwin)
            let count = kevent(descriptors.poll, nil, 0, events, Int32(capacity), nil)
            #else
            let count = epoll_wait(descriptors.poll, events, Int32(capacity), -1)
            #endif
            if count < 0 {
                if errno == EINTR { continue }
                preconditionFailure("waiting for socket readiness failed: errno \(errno)")
            }
            var batch: [Readiness] = []
            batch.reserveCapacity(Int(count))
            for index in 0..<Int(count) {
                let event = events[index]
                #if canImport(Darwin)
                let fd = Int32(event.ident)
                if fd == wakeRead { running = false; continue }
                var readiness = Readiness(fd: fd)
                if event.filter == EVFILT_READ { readiness.readable = true } else { readiness.writable = true }
                if event.flags & UInt16(EV_EOF) != 0 && event.fflags != 0 { readiness.hangup = true }
                if event.filter == EVFILT_READ && event.flags & UInt16(EV_EOF) != 0 { readiness.inputClosed = true }
                #else
                let fd = event.data.fd
                if fd == wakeRead { running = false; continue }
                let flags = event.events
                var readiness = Readiness(fd: fd)
                readiness.readable = flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0
                readiness.writable = flags & EPOLLOUT.rawValue != 0
                readiness.hangup = flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
                readiness.inputClosed = flags & EPOLLRDHUP.rawValue != 0
                #endif
                batch.append(readiness)
            }
            if !batch.isEmpty {
                queue.async { [batch] in deliver(batch) }
            }
        }
    }

    #if canImport(Darwin)
    private static func change(_ fd: Int32, filter: Int32, flags: Int32) -> kevent {
        kevent(ident: UInt(fd), filter: Int16(filter), flags: UInt16(flags), fflags: 0, data: 0, udata: nil)
    }
    #endif
}

/// The poll instance and the wake pipe, closed when the last holder lets go.
private final class Descriptors: Sendable {
    let poll: Int32
    let wakeRead: Int32
    let wakeWrite: Int32

    init() {
        #if canImport(Darwin)
        poll = kqueue()
        #else
        poll = epoll_create1(Int32(EPOLL_CLOEXEC))
        #endif
        precondition(poll >= 0, "cannot create a poller: errno \(errno)")
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "cannot create the poller's wake pipe: errno \(errno)")
        (wakeRead, wakeWrite) = (ends[0], ends[1])
    }

    deinit {
        close(poll)
        close(wakeRead)
        close(wakeWrite)
    }
}
