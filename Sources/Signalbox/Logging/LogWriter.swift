import Dispatch
import Foundation
import Logging
import Rx

/// Writes log records from a thread of its own, in batches: a request's
/// thread only appends a record to a queue (a short lock, no formatting, no
/// system call), and the writer formats what has gathered and hands it to
/// the file descriptor with one `write`.
///
/// The writer wakes when the queue gets its first record, then waits
/// `batchInterval` for more before each write, so a busy server costs one
/// wake-up and one `write` per interval, not per line. A writer that falls
/// behind (a blocked stderr pipe) never blocks the producers: beyond
/// `maxQueuedRecords` records are dropped, counted, and reported in a line
/// of their own once the writer catches up. `flush` returns after every
/// record logged before it is written (shutdown calls it before exit).
public final class LogWriter: Sendable {
    /// What the writer formats from, captured on the logging thread.
    struct Record: Sendable {
        /// Wall-clock time of the call.
        var time: timespec
        var label: String
        /// The handler's own metadata (merged under the event's at format time).
        var base: Logger.Metadata
        var provided: Logger.Metadata?
        var event: LogEvent
    }

    private enum Item: Sendable {
        case record(Record)
        /// Runs once everything queued before it is written.
        case barrier(@Sendable () -> Void)
    }

    private struct Queue {
        var items: [Item] = []
        var records = 0
        var dropped = 0
        /// The writer waits for a first record; the next producer must wake it.
        var writerIdle = false
        var urged = false
    }

    public enum Format: Sendable { case text, json }

    private let format: Format
    private let fileDescriptor: Int32
    private let maxQueuedRecords: Int
    private let batchInterval: DispatchTimeInterval
    private let queue = Locked(Queue())
    private let wake = DispatchSemaphore(value: 0)

    /// Starts the writer thread, which lives as long as the process.
    public init(format: Format, fileDescriptor: Int32 = 2, maxQueuedRecords: Int = 65_536,
                batchInterval: DispatchTimeInterval = .milliseconds(10)) {
        self.format = format
        self.fileDescriptor = fileDescriptor
        self.maxQueuedRecords = max(1, maxQueuedRecords)
        self.batchInterval = batchInterval
        let thread = Thread { [self] in run() }
        thread.name = "signalbox.log"
        thread.start()
    }

    /// Queues a record; never waits for the writer.
    func append(_ record: Record) {
        let wakeWriter = queue.withLock { queue -> Bool in
            guard queue.records < maxQueuedRecords else {
                queue.dropped += 1
                return false
            }
            queue.items.append(.record(record))
            queue.records += 1
            if queue.writerIdle {
                queue.writerIdle = false
                return true
            }
            // A full queue cuts the writer's gathering pause short, once.
            if queue.records >= maxQueuedRecords / 2 && !queue.urged {
                queue.urged = true
                return true
            }
            return false
        }
        if wakeWriter { wake.signal() }
    }

    /// Calls `done` (on the writer thread) once every record queued before this call is written.
    public func flush(then done: @escaping @Sendable () -> Void) {
        queue.withLock { queue in
            queue.items.append(.barrier(done))
            queue.writerIdle = false
            queue.urged = true
        }
        wake.signal()
    }

    /// Waits until every record queued before this call is written.
    public func flush() async {
        await withCheckedContinuation { (written: CheckedContinuation<Void, Never>) in
            flush { written.resume() }
        }
    }

    /// Blocks the calling thread until every record queued before this call is written.
    public func flushSynchronously() {
        let written = DispatchSemaphore(value: 0)
        flush { written.signal() }
        written.wait()
    }

    // MARK: The writer thread

    private func run() {
        var output: [UInt8] = []
        output.reserveCapacity(1 << 16)
        var formatter = LogLineFormatter(format: format)
        while true {
            let (items, dropped, urged) = queue.withLock { queue -> ([Item], Int, Bool) in
                if queue.items.isEmpty && queue.dropped == 0 {
                    queue.writerIdle = true
                    return ([], 0, false)
                }
                defer {
                    queue.items.removeAll(keepingCapacity: true)
                    queue.records = 0
                    queue.dropped = 0
                    queue.urged = false
                }
                return (queue.items, queue.dropped, queue.urged)
            }
            if items.isEmpty && dropped == 0 {
                wake.wait()
                continue
            }
            var barriers: [@Sendable () -> Void] = []
            for item in items {
                switch item {
                case .record(let record): formatter.append(record, to: &output)
                case .barrier(let done): barriers.append(done)
                }
            }
            if dropped > 0 { formatter.appendDropped(dropped, to: &output) }
            writeAll(output)
            output.removeAll(keepingCapacity: true)
            for done in barriers { done() }
            // Let the next batch gather, unless a flush or a filling queue asks for it now.
            if !urged && barriers.isEmpty { _ = wake.wait(timeout: .now() + batchInterval) }
        }
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else if written < 0 && errno == EAGAIN {
                    // A non-blocking descriptor: wait until it takes more.
                    var poller = pollfd(fd: fileDescriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&poller, 1, 1000)
                } else {
                    return  // closed or broken: nothing a log line can do about it
                }
            }
        }
    }
}
