import Base
import Dispatch
import Foundation
import Logging

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
/// `setFormat` switches the format from the next record logged (a reload).
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

    /// What happens once the records queued before it are written.
    enum Mark {
        /// A flush: the lines go out, then `done` runs.
        case flushed(done: @Sendable () -> Void)
        /// A change of format for the records after it.
        case format(Format)
    }

    private struct Queue {
        var records: [Record] = []
        /// In order, each after the records queued before it (`after` of them).
        var marks: [(after: Int, mark: Mark)] = []
        var dropped = 0
        /// The writer waits for a first record; the next producer must wake it.
        var writerIdle = false
        var urged = false
    }

    public enum Format: Sendable { case text, json }

    /// The format of the first records; `setFormat` changes it.
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
        // Named by OwnThread: Foundation's `Thread.name`, set before `start()`, named nothing.
        OwnThread.start(name: Self.threadName) { [self] in run() }
    }

    /// The writer thread's name (gdb, top).
    static let threadName = "signalbox.log"

    /// Queues a record; never waits for the writer.
    func append(_ record: Record) {
        let wakeWriter = queue.withLock { queue -> Bool in
            guard queue.records.count < maxQueuedRecords else {
                queue.dropped += 1
                return false
            }
            queue.records.append(record)
            if queue.writerIdle {
                queue.writerIdle = false
                return true
            }
            // A half-full queue cuts the writer's gathering pause short, once.
            if queue.records.count >= maxQueuedRecords / 2 && !queue.urged {
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
            queue.marks.append((queue.records.count, .flushed(done: done)))
            queue.writerIdle = false
            queue.urged = true
        }
        wake.signal()
    }

    /// Formats the records logged after this call in `format`; those before keep the old one.
    public func setFormat(_ format: Format) {
        let wakeWriter = queue.withLock { queue -> Bool in
            queue.marks.append((queue.records.count, .format(format)))
            defer { queue.writerIdle = false }
            return queue.writerIdle
        }
        if wakeWriter { wake.signal() }
    }

    /// Waits until every record queued before this call is written.
    public func flush() async {
        await withCheckedContinuation { (written: CheckedContinuation<Void, Never>) in
            flush { written.resume() }
        }
    }

    // MARK: The writer thread

    private func run() {
        var output: [UInt8] = []
        output.reserveCapacity(1 << 16)
        var formatter = LogLineFormatter(format: format)
        // Swapped with the queue's arrays, so both keep their capacity.
        var records: [Record] = []
        var marks: [(after: Int, mark: Mark)] = []
        while true {
            let (dropped, urged, idle) = queue.withLock { queue -> (Int, Bool, Bool) in
                if queue.records.isEmpty && queue.marks.isEmpty && queue.dropped == 0 {
                    queue.writerIdle = true
                    return (0, false, true)
                }
                swap(&records, &queue.records)
                swap(&marks, &queue.marks)
                defer {
                    queue.dropped = 0
                    queue.urged = false
                }
                return (queue.dropped, queue.urged, false)
            }
            if idle {
                wake.wait()
                continue
            }
            var written = 0
            var flushed = false
            for (after, mark) in marks {
                // Records before a mark are formatted (and, for a flush, written) before it applies.
                while written < after {
                    formatter.append(records[written], to: &output)
                    written += 1
                }
                switch mark {
                case .flushed(let done):
                    writeAll(output)
                    output.removeAll(keepingCapacity: true)
                    done()
                    flushed = true
                case .format(let format):
                    formatter = LogLineFormatter(format: format)
                }
            }
            while written < records.count {
                formatter.append(records[written], to: &output)
                written += 1
            }
            if dropped > 0 { formatter.appendDropped(dropped, to: &output) }
            writeAll(output)
            output.removeAll(keepingCapacity: true)
            records.removeAll(keepingCapacity: true)
            marks.removeAll(keepingCapacity: true)
            // Let the next batch gather, unless a flush or a filling queue asks for it now.
            if !urged && !flushed { _ = wake.wait(timeout: .now() + batchInterval) }
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
