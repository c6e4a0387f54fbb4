import Foundation
import Logging

/// Formats `LogWriter` records on the writer thread: the text format is
/// swift-log's `StreamLogHandler` line, byte for byte; the JSON format is
/// `JSONLogLine`'s object.
struct LogLineFormatter {
    let format: LogWriter.Format
    /// The text timestamp of `cachedSecond`: formatted once a second, not once a line.
    private var cachedSecond = -1
    private var cachedTimestamp: [UInt8] = []
    /// Reused for every line's metadata order.
    private var positions: [Logger.Metadata.Index] = []

    init(format: LogWriter.Format) {
        self.format = format
    }

    mutating func append(_ record: LogWriter.Record, to output: inout [UInt8]) {
        let metadata = Self.merged(record)
        switch format {
        case .text:
            appendText(record, metadata: metadata, to: &output)
        case .json:
            let seconds = Double(record.time.tv_sec) + Double(record.time.tv_nsec) / 1e9
            guard let line = JSONLogLine.line(
                time: Date(timeIntervalSince1970: seconds), level: record.event.level, label: record.label,
                message: record.event.message.description, metadata: metadata)
            else { return }
            output += line
        }
    }

    /// The line that reports records dropped while the writer was behind.
    mutating func appendDropped(_ count: Int, to output: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let event = LogEvent(
            level: .warning, message: "log lines dropped: the log writer fell behind",
            metadata: ["dropped": "\(count)"], source: "Signalbox", file: #fileID, function: #function, line: #line)
        append(LogWriter.Record(time: now, label: "signalbox", base: [:], provided: nil, event: event), to: &output)
    }

    /// Base metadata, then the provider's, then the call's, then the error's: `StreamLogHandler`'s order.
    private static func merged(_ record: LogWriter.Record) -> Logger.Metadata {
        var metadata = record.base
        if let provided = record.provided, !provided.isEmpty {
            metadata.merge(provided) { _, provided in provided }
        }
        if let explicit = record.event.metadata, !explicit.isEmpty {
            if metadata.isEmpty { metadata = explicit } else { metadata.merge(explicit) { _, explicit in explicit } }
        }
        if let error = record.event.error {
            metadata["error.message"] = "\(error)"
            metadata["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        return metadata
    }

    private mutating func appendText(_ record: LogWriter.Record, metadata: Logger.Metadata, to output: inout [UInt8]) {
        if record.time.tv_sec != cachedSecond {
            cachedSecond = record.time.tv_sec
            cachedTimestamp = Self.localTimestamp(record.time.tv_sec)
        }
        output += cachedTimestamp
        output.append(0x20)
        Self.append(record.event.level.rawValue, to: &output)
        if !record.label.isEmpty { output.append(0x20) }
        Self.append(record.label, to: &output)
        output.append(0x3A)  // ":"
        if !metadata.isEmpty {
            // Sorted by key, as StreamLogHandler prints them; positions are sorted, not copies of the pairs.
            positions.removeAll(keepingCapacity: true)
            positions.append(contentsOf: metadata.indices)
            // Insertion sort: a line has a handful of keys. Keys only: a pair would copy
            // (and destroy) its value at every comparison.
            let keys = metadata.keys
            for next in 1..<max(positions.count, 1) {
                let position = positions[next]
                let key = keys[position]
                var slot = next
                while slot > 0 && key < keys[positions[slot - 1]] {
                    positions[slot] = positions[slot - 1]
                    slot -= 1
                }
                positions[slot] = position
            }
            for position in positions {
                let (key, value) = metadata[position]
                output.append(0x20)
                Self.append(key, to: &output)
                output.append(0x3D)  // "="
                switch value {
                case .string(let string): Self.append(string, to: &output)
                case let value: Self.append(value.description, to: &output)
                }
            }
        }
        output.append(0x20)
        output.append(0x5B)  // "["
        Self.append(record.event.source, to: &output)
        output.append(0x5D)  // "]"
        output.append(0x20)
        Self.append(record.event.message.description, to: &output)
        output.append(0x0A)
    }

    /// Appends the UTF-8 bytes of `string` in one copy.
    private static func append(_ string: String, to output: inout [UInt8]) {
        if string.utf8.withContiguousStorageIfAvailable({ output.append(contentsOf: $0) }) == nil {
            output += string.utf8
        }
    }

    /// `StreamLogHandler`'s timestamp: local time, `%Y-%m-%dT%H:%M:%S%z`.
    private static func localTimestamp(_ seconds: Int) -> [UInt8] {
        var time = time_t(seconds)
        var local = tm()
        guard localtime_r(&time, &local) != nil else { return Array("<unknown>".utf8) }
        var buffer = [Int8](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
        return buffer.prefix(count).map { UInt8(bitPattern: $0) }
    }
}
