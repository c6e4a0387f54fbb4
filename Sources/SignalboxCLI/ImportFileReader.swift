#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Search

/// Reads one import file in pieces, inflating a `.gz` file as it goes, so that no file is
/// ever held whole (a request holds at most one chunk).
final class ImportFileReader {
    /// Bytes read from the file at a time.
    static let readBytes = 1 << 20

    let path: String
    /// The file's size on disk (compressed, for a `.gz` file): what progress counts against.
    let size: Int
    private let descriptor: Int32
    private let inflater: GzipInflater?
    private var buffer = [UInt8](repeating: 0, count: ImportFileReader.readBytes)

    init(path: String, gzipped: Bool) throws(ImportFailure) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable("\(path): \(String(cString: strerror(errno)))") }
        var status = stat()
        fstat(descriptor, &status)
        size = Int(status.st_size)
        // No bound of our own on what a file inflates to: each request is bounded by the chunk size.
        inflater = gzipped ? GzipInflater(maxOutputBytes: Int.max) : nil
    }

    deinit { close(descriptor) }

    /// The next piece: how many bytes of the file it consumed, and what they hold (inflated).
    /// `nil` at the end of the file.
    func next() throws(ImportFailure) -> (consumed: Int, bytes: [UInt8])? {
        var consumed = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count >= 0 else { throw .unreadable("\(path): \(String(cString: strerror(errno)))") }
            consumed += count
            guard let inflater else {
                return count == 0 ? nil : (count, Array(buffer[0..<count]))
            }
            do {
                if count == 0 {
                    try inflater.finish()
                    return nil
                }
                var inflated: [UInt8] = []
                try inflater.feed(Array(buffer[0..<count])) { inflated.append(contentsOf: $0) }
                // A piece may inflate to nothing yet (a gzip header); read on rather than end early.
                if !inflated.isEmpty { return (consumed, inflated) }
            } catch {
                throw .unreadable("\(path): \(error)")
            }
        }
    }
}
