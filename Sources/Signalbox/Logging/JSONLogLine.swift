import Foundation
import Logging

/// One log record as a line of JSON (`log.format=json`), for log collectors: `time`, `level`,
/// `label`, `message` and the metadata, keys sorted. `LogLineFormatter` writes these on the
/// log writer's thread.
enum JSONLogLine {
    /// The JSON object and its newline; nil when the metadata cannot be written as JSON.
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
