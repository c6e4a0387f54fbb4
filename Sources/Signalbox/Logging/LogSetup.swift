import Base
import Logging
import Rx
import Synchronization

/// Bootstraps swift-log once per process, with a level that a reload can change.
public enum LogSetup {
    private static let level = Atomic<UInt8>(2)  // info
    private static let levels = Logger.Level.allCases

    /// Chooses the format (text or json) and the starting level; later calls only change the level.
    public static func bootstrap(format: String, level: String, queueLines: Int = 65_536) {
        setLevel(level)
        bootstrapOnce(json: format == "json", queueLines: queueLines)
    }

    /// Changes the level of every logger at once.
    public static func setLevel(_ name: String) {
        let index = levels.firstIndex(of: Logger.Level(rawValue: name) ?? .info) ?? 2
        level.store(UInt8(index), ordering: .relaxed)
    }

    /// The process's log writer, once bootstrapped.
    private static let writer = Locked<LogWriter?>(nil)

    private static func bootstrapOnce(json: Bool, queueLines: Int) {
        writer.withLock { writer in
            guard writer == nil else { return }
            // Lines go to stderr from the writer's thread, in batches (off the request path).
            let shared = LogWriter(format: json ? .json : .text, maxQueuedRecords: queueLines)
            writer = shared
            LoggingSystem.bootstrap { label in
                SharedLevelHandler(inner: BatchedLogHandler(label: label, writer: shared))
            }
        }
    }

    /// Returns once every line logged before the call is written (before the process exits).
    public static func flush() async {
        guard let shared = writer.withLock({ $0 }) else { return }
        await shared.flush()
    }

    /// Wraps a handler so its level is the process-wide one.
    struct SharedLevelHandler: LogHandler {
        var inner: any LogHandler

        var logLevel: Logger.Level {
            get { LogSetup.levels[Int(LogSetup.level.load(ordering: .relaxed))] }
            set { LogSetup.setLevel(newValue.rawValue) }
        }

        var metadata: Logger.Metadata {
            get { inner.metadata }
            set { inner.metadata = newValue }
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { inner[metadataKey: key] }
            set { inner[metadataKey: key] = newValue }
        }

        func log(event: LogEvent) {
            inner.log(event: event)
        }
    }
}
