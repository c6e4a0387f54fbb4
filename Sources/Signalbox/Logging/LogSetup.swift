import Base
import Logging
import Synchronization

/// Bootstraps swift-log once per process, with a level and a format that a reload can change.
public enum LogSetup {
    private static let level = Atomic<UInt8>(2)  // info
    private static let levels = Logger.Level.allCases

    /// Chooses the format (text or json) and the starting level; later calls change both
    /// (the queue's size stays the first call's).
    public static func bootstrap(format: String, level: String, queueLines: Int = 65_536) {
        setLevel(level)
        bootstrapOnce(format: logFormat(format), queueLines: queueLines)
    }

    /// Formats the lines logged from now on as `name` (text or json); a no-op before `bootstrap`.
    public static func setFormat(_ name: String) {
        switchFormat(to: logFormat(name))
    }

    private static func switchFormat(to format: LogWriter.Format) {
        installed.withLock { installed in
            guard let current = installed, current.format != format else { return }
            current.writer.setFormat(format)
            installed = (current.writer, format)
        }
    }

    /// Changes the level of every logger at once.
    public static func setLevel(_ name: String) {
        let index = levels.firstIndex(of: Logger.Level(rawValue: name) ?? .info) ?? 2
        level.store(UInt8(index), ordering: .relaxed)
    }

    /// The process's log writer and its current format, once bootstrapped.
    private static let installed = Locked<(writer: LogWriter, format: LogWriter.Format)?>(nil)

    private static func logFormat(_ name: String) -> LogWriter.Format {
        name == "json" ? .json : .text
    }

    private static func bootstrapOnce(format: LogWriter.Format, queueLines: Int) {
        let alreadyInstalled = installed.withLock { installed -> Bool in
            guard installed == nil else { return true }
            // Lines go to stderr from the writer's thread, in batches (off the request path).
            let shared = LogWriter(format: format, maxQueuedRecords: queueLines)
            installed = (shared, format)
            LoggingSystem.bootstrap { label in
                SharedLevelHandler(inner: BatchedLogHandler(label: label, writer: shared))
            }
            return false
        }
        if alreadyInstalled { switchFormat(to: format) }
    }

    /// Returns once every line logged before the call is written (before the process exits).
    public static func flush() async {
        guard let shared = installed.withLock({ $0?.writer }) else { return }
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
