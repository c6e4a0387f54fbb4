import Foundation
import Logging

/// A swift-log handler that writes one JSON object per line to standard error,
/// for log collectors, on the calling thread. The service logs through
/// `BatchedLogHandler` instead, whose writer formats its JSON lines with `line`.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String

    public init(label: String) {
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        guard let line = Self.line(time: Date(), level: event.level, label: label, message: event.message.description, metadata: merged)
        else { return }
        FileHandle.standardError.write(Data(line))
    }

    /// One log line: the JSON object and its newline (`LogWriter` formats its JSON records with it).
    static func line(time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> [UInt8]? {
        var object: [String: Any] = [
            "time": time.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true)),
            "level": level.rawValue,
            "label": label,
            "message": message,
        ]
        for (key, value) in metadata { object[key] = Self.plain(value) }
        guard let line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return Array(line) + [0x0A]
    }

    private static func plain(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array(let array): array.map(plain)
        case .dictionary(let dictionary): dictionary.mapValues(plain)
        }
    }
}
