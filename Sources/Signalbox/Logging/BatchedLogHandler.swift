import Foundation
import Logging

/// A swift-log handler that hands each event to a `LogWriter` (a thread of
/// its own that formats and writes in batches), so logging on a request's
/// thread costs a queue append: no formatting, no lock on stderr, no system call.
public struct BatchedLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let writer: LogWriter

    public init(label: String, writer: LogWriter, metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider) {
        self.label = label
        self.writer = writer
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        // The provider reads task-locals, so it runs here, on the logging thread.
        let provided = metadataProvider?.get()
        writer.append(LogWriter.Record(time: now, label: label, base: metadata, provided: provided, event: event))
    }
}
