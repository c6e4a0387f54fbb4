import Base
import Foundation
import Logging
import Testing
@testable import Signalbox

@Suite struct LogWriterTests {
    /// A file of its own and a writer on it.
    final class Output: Sendable {
        let path: String
        let writer: LogWriter

        init(format: LogWriter.Format = .text, maxQueuedRecords: Int = 65_536) {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("logwriter-\(UUID().uuidString).log").path
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            writer = LogWriter(format: format, fileDescriptor: fd, maxQueuedRecords: maxQueuedRecords)
        }

        deinit { unlink(path) }

        func logger(_ label: String = "test") -> Logger {
            Logger(label: label) { [writer] label in BatchedLogHandler(label: label, writer: writer, metadataProvider: nil) }
        }

        func lines() -> [Substring] {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return text.split(separator: "\n")
        }
    }

    /// StreamLogHandler's output, captured.
    final class Captured: TextOutputStream, @unchecked Sendable {
        var text = ""
        func write(_ string: String) { text += string }
    }

    /// The writer runs on a thread of its own that gdb and top show by name.
    @Test func theWriterThreadIsNamed() async {
        let output = Output()
        let name = Locked<String?>(nil)
        await withCheckedContinuation { (flushed: CheckedContinuation<Void, Never>) in
            output.writer.flush {  // called on the writer thread
                name.withLock { $0 = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) }
                flushed.resume()
            }
        }
        #expect(name.withLock { $0 } == LogWriter.threadName + "\n")
    }

    @Test func textLinesAreStreamLogHandlersLines() async {
        let output = Output()
        let captured = Captured()
        let stream = Logger(label: "signalbox") { label in StreamLogHandler(label: label, stream: captured, metadataProvider: nil) }
        let metadata: Logger.Metadata = [
            "status": .stringConvertible(200), "path": "/search?q=a b", "duration_ms": .stringConvertible(0.052),
            "list": ["x", "y"],
        ]
        output.logger("signalbox").info("request", metadata: metadata)
        stream.info("request", metadata: metadata)
        output.logger("signalbox").warning("no metadata")
        stream.warning("no metadata")
        await output.writer.flush()

        // The same lines but for the timestamp (which may have ticked between the two).
        let ours: [String] = output.lines().map { String($0.drop { $0 != " " }) }
        let theirs: [String] = captured.text.split(separator: "\n").map { String($0.drop { $0 != " " }) }
        #expect(ours == theirs)
        let expected = #" info signalbox: duration_ms=0.052 list=["x", "y"] path=/search?q=a b status=200 [SignalboxTests] request"#
        #expect(ours.first == expected)
        // Same timestamp shape: 2026-11-24T23:52:37+0000.
        let ourStamp: Int = output.lines().first?.prefix { $0 != " " }.count ?? 0
        let theirStamp: Int = captured.text.prefix { $0 != " " }.count
        #expect(ourStamp == theirStamp)
    }

    @Test func flushReturnsOnceEveryEarlierLineIsWritten() async {
        let output = Output()
        let logger = output.logger()
        for number in 0..<5_000 { logger.info("line \(number)") }
        await output.writer.flush()
        let numbers: [String] = output.lines().map { line in String(line.split(separator: " ").last ?? "") }
        let expected: [String] = (0..<5_000).map { String($0) }
        #expect(numbers == expected)
    }

    @Test func concurrentLoggersLoseNoLine() async {
        let output = Output()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    let logger = output.logger("task\(task)")
                    for number in 0..<500 { logger.info("line", metadata: ["n": "\(number)"]) }
                }
            }
        }
        await output.writer.flush()
        #expect(output.lines().count == 4_000)
    }

    @Test func aFullQueueDropsAndCountsInsteadOfWaiting() async {
        let output = Output(maxQueuedRecords: 8)
        let logger = output.logger()
        for number in 0..<2_000 { logger.info("line \(number)") }
        await output.writer.flush()
        let lines = output.lines()
        let reported = lines.filter { $0.contains("log lines dropped") }
        var dropped = 0
        for line in reported {
            for word in line.split(separator: " ") where word.hasPrefix("dropped=") { dropped += Int(word.dropFirst(8)) ?? 0 }
        }
        // Timing decides how many are dropped; none is lost without being counted.
        #expect(lines.count - reported.count + dropped == 2_000)
    }

    @Test func jsonLinesAreJSONObjects() async throws {
        let output = Output(format: .json)
        output.logger("signalbox").info("request", metadata: ["status": .stringConvertible(404)])
        await output.writer.flush()
        let line = try #require(output.lines().first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == "request")
        #expect(object["status"] as? String == "404")
        #expect(object["level"] as? String == "info")
        #expect(object["label"] as? String == "signalbox")
    }

    /// A reload's `log.format`: records logged before the switch keep the old format, even
    /// when the writer formats them after it (nothing was written before the last flush here).
    @Test func setFormatSwitchesFromTheNextRecord() async throws {
        let output = Output(format: .text)
        let logger = output.logger("signalbox")
        logger.info("before")
        output.writer.setFormat(.json)
        logger.info("after")
        output.writer.setFormat(.text)
        logger.info("back")
        await output.writer.flush()
        let lines = output.lines()
        try #require(lines.count == 3)
        #expect(lines[0].hasSuffix("info signalbox: [SignalboxTests] before"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(object["message"] as? String == "after")
        #expect(lines[2].hasSuffix("info signalbox: [SignalboxTests] back"))
    }
}
