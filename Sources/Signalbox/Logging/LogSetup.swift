import Logging
import Rx
import Synchronization

/// Bootstraps swift-log once per process, with a level that a reload can change.
public enum LogSetup {
    private static let level = Atomic<UInt8>(2)  // info
    private static let levels = Logger.Level.allCases

    /// Chooses the format (text or json) and the starting level; later calls only change the level.
    public static func bootstrap(format: String, level: String) {
        setLevel(level)
        bootstrapOnce(json: format == "json")
    }

    /// Changes the level of every logger at once.
    public static func setLevel(_ name: String) {
        let index = levels.firstIndex(of: Logger.Level(rawValue: name) ?? .info) ?? 2
        level.store(UInt8(index), ordering: .relaxed)
    }

    private static let bootstrapped = Locked(false)

    private static func bootstrapOnce(json: Bool) {
        bootstrapped.withLock { bootstrapped in
            guard !bootstrapped else { return }
            bootstrapped = true
            LoggingSystem.bootstrap { label in
                let inner: any LogHandler = json ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label)
                return SharedLevelHandler(inner: inner)
            }
        }
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
