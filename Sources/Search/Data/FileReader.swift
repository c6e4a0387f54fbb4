import CZlib
import Foundation

/// Reads a whole file, inflating it when it is gzip-compressed (zlib reads plain files as they are).
public enum FileReader {
    /// Largest file read (inflated), to refuse absurd inputs with a clear error. 2 GiB.
    public static let maxBytes = 2 << 30

    public static func read(path: String) throws(DocumentLoaderError) -> [UInt8] {
        guard FileManager.default.isReadableFile(atPath: path) else { throw .unreadable(path: path, reason: "no such readable file") }
        guard let file = gzopen(path, "rb") else { throw .unreadable(path: path, reason: "cannot open") }
        defer { gzclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let read = chunk.withUnsafeMutableBytes { gzread(file, $0.baseAddress, UInt32($0.count)) }
            if read < 0 { throw .unreadable(path: path, reason: "corrupt compressed data") }
            if read == 0 { break }
            bytes.append(contentsOf: chunk[0..<Int(read)])
            if bytes.count > maxBytes { throw .unreadable(path: path, reason: "larger than \(maxBytes) bytes") }
        }
        return bytes
    }
}
