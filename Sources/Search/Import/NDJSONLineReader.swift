import Foundation

/// Splits an NDJSON import into lines as its bytes arrive: `feed` each chunk read from the
/// socket, then `finish`. Only a line cut by a chunk's end is kept between calls, so an import
/// is never held whole.
///
/// Lines end at LF; a CR before it is dropped (CRLF files). Blank lines (spaces, tabs, CR) are
/// skipped but counted, so line numbers are the file's. A UTF-8 byte order mark at the start
/// is dropped. A line longer than `maxLineBytes` gives an error for that line, its bytes are
/// dropped as they come, and the lines after it are read as usual.
public struct NDJSONLineReader: Sendable {
    /// Default of `maxLineBytes`: 1 MiB.
    public static let defaultMaxLineBytes = 1 << 20

    /// Longest line, in bytes, without its line end.
    public let maxLineBytes: Int

    /// The start of a line cut by the end of the last chunk.
    private var pending: [UInt8] = []
    /// Lines ended so far.
    private var linesEnded = 0
    /// The current line is over `maxLineBytes`: its bytes are dropped until its end.
    private var skippingLongLine = false
    private var finished = false

    public init(maxLineBytes: Int = defaultMaxLineBytes) {
        self.maxLineBytes = maxLineBytes
    }

    /// The lines `chunk` completes, in order.
    public mutating func feed(_ chunk: some Collection<UInt8>) -> [Result<NDJSONLine, ImportLineError>] {
        precondition(!finished, "NDJSONLineReader.feed after finish")
        var output: [Result<NDJSONLine, ImportLineError>] = []
        let wasContiguous: Void? = chunk.withContiguousStorageIfAvailable { read($0, into: &output) }
        if wasContiguous == nil {
            Array(chunk).withUnsafeBufferPointer { read($0, into: &output) }
        }
        return output
    }

    /// The last line, when the input does not end with a line end. The reader is done.
    public mutating func finish() -> [Result<NDJSONLine, ImportLineError>] {
        precondition(!finished, "NDJSONLineReader.finish twice")
        finished = true
        var output: [Result<NDJSONLine, ImportLineError>] = []
        if skippingLongLine || !pending.isEmpty {
            endLine(pending[...], into: &output)
        }
        pending = []
        return output
    }

    private mutating func read(_ chunk: UnsafeBufferPointer<UInt8>, into output: inout [Result<NDJSONLine, ImportLineError>]) {
        var start = 0
        while start < chunk.count {
            guard let newline = Self.lineFeed(in: chunk, from: start) else {
                keep(chunk[start...])
                return
            }
            if pending.isEmpty, !skippingLongLine {
                endLine(chunk[start..<newline], into: &output)
            } else {
                keep(chunk[start..<newline])
                endLine(pending[...], into: &output)
                pending.removeAll(keepingCapacity: pending.capacity <= 1 << 16)
            }
            start = newline + 1
        }
    }

    /// The offset of the first LF at or after `start`: `memchr`, many bytes a step (every byte of
    /// an import passes here; a byte-by-byte search cost more than a line's split, issue 25).
    private static func lineFeed(in chunk: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = chunk.baseAddress, start < chunk.count, let found = memchr(base + start, 0x0A, chunk.count - start) else {
            return nil
        }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }

    /// Keeps the start of a line until its end arrives, unless the line is already too long.
    private mutating func keep(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
        guard !skippingLongLine else { return }
        // One byte over the limit may be the CR of a CRLF, and three more the first line's byte
        // order mark (both dropped); more is too long whatever follows. `endLine` checks exactly.
        let allowance = maxLineBytes + 1 + (linesEnded == 0 ? 3 : 0)
        if pending.count + bytes.count > allowance {
            skippingLongLine = true
            pending = []
        } else {
            pending.append(contentsOf: bytes)
        }
    }

    private mutating func endLine<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, into output: inout [Result<NDJSONLine, ImportLineError>]
    ) where Bytes.Index == Int {
        linesEnded += 1
        let number = linesEnded
        if skippingLongLine {
            skippingLongLine = false
            output.append(.failure(ImportLineError(line: number, "the line is longer than \(maxLineBytes) bytes")))
            return
        }
        var start = bytes.startIndex
        var end = bytes.endIndex
        if end > start, bytes[end - 1] == 0x0D { end -= 1 }
        if number == 1, end - start >= 3, bytes[start] == 0xEF, bytes[start + 1] == 0xBB, bytes[start + 2] == 0xBF { start += 3 }
        guard end - start <= maxLineBytes else {
            output.append(.failure(ImportLineError(line: number, "the line is longer than \(maxLineBytes) bytes")))
            return
        }
        guard bytes[start..<end].contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
        output.append(.success(NDJSONLine(number: number, bytes: Array(bytes[start..<end]))))
    }
}

/// One line of an NDJSON import: its 1-based number and its bytes, without the line end.
public struct NDJSONLine: Sendable, Hashable {
    public var number: Int
    public var bytes: [UInt8]

    public init(number: Int, bytes: [UInt8]) {
        self.number = number
        self.bytes = bytes
    }
}
