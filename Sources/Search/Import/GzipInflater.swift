import CZlib

/// Inflates a gzip stream fed in chunks as they arrive (an import sent with
/// `Content-Encoding: gzip`), never holding more than one chunk's output at a time.
///
/// `maxOutputBytes` bounds what the whole stream may inflate to, so a small
/// compressed body cannot expand without limit.
public final class GzipInflater {
    /// Why a stream could not be inflated.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case corrupt
        case tooLarge(limit: Int)
        case truncated

        public var description: String {
            switch self {
            case .corrupt: "the body is not valid gzip data"
            case .tooLarge(let limit): "the body inflates to more than \(limit) bytes"
            case .truncated: "the gzip data ends before its end"
            }
        }
    }

    private var stream = z_stream()
    private var finished = false
    private var produced = 0
    private let maxOutputBytes: Int
    private var output = [UInt8](repeating: 0, count: 1 << 16)

    public init(maxOutputBytes: Int) {
        self.maxOutputBytes = maxOutputBytes
        // 16 + MAX_WBITS: a gzip header and trailer, not a raw zlib stream.
        _ = inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
    }

    deinit { inflateEnd(&stream) }

    /// Inflates `chunk`, handing each piece of output to `body` as it is made.
    public func feed(_ chunk: [UInt8], _ body: ([UInt8]) throws -> Void) throws {
        guard !chunk.isEmpty else { return }
        if finished { throw Failure.corrupt }  // bytes after the gzip trailer
        var input = chunk
        try input.withUnsafeMutableBufferPointer { input in
            stream.next_in = input.baseAddress
            stream.avail_in = UInt32(input.count)
            while stream.avail_in > 0 && !finished {
                let status = output.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else { throw Failure.corrupt }
                let made = output.count - Int(stream.avail_out)
                produced += made
                if produced > maxOutputBytes { throw Failure.tooLarge(limit: maxOutputBytes) }
                if made > 0 { try body(Array(output[0..<made])) }
                if status == Z_STREAM_END { finished = true }
                if status == Z_BUF_ERROR && made == 0 { break }
            }
        }
        stream.next_in = nil
    }

    /// Checks that the stream ended where the body ended.
    public func finish() throws {
        if !finished { throw Failure.truncated }
    }
}
