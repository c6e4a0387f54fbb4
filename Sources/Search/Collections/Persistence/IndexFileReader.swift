import CZlib
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads one file written by `IndexFileWriter`: checks its magic and its checksum over every
/// byte, then hands out its values in order, each bounds-checked (a count that runs past the end
/// is an error, never a read out of the file). Reads with `pread` (`OpenFile`), never through a
/// mapping: a file truncated by another process while it is read is an error, not a SIGBUS.
final class IndexFileReader {
    let path: String
    /// The open file; arrays left in it (`skipArray`) are read from it later.
    let file: OpenFile
    /// Where the checksum starts: the end of the values.
    private let end: Int
    private var offset = IndexFileWriter.alignment

    /// Bytes read at once for the checksum.
    static let checksumWindow = 1 << 20

    /// Opens `path` and checks it; `magic` is the 8 bytes it must start with.
    init(path: String, magic: [UInt8]) throws(IndexFileError) {
        self.path = path
        file = try OpenFile(path: path)
        let size = file.size
        let minimum = IndexFileWriter.alignment * 2
        guard size >= minimum else { throw IndexFileError(.truncated, path: path, "\(size) bytes") }
        end = size - IndexFileWriter.alignment
        guard try file.bytes(at: 0, count: magic.count) == magic else {
            throw IndexFileError(.unknownFormat, path: path, "not an index file of this version")
        }
        let stored = try file.bytes(at: end, count: 8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self).littleEndian }
        // The whole file is read once for the checksum (then again for the values, from the page cache).
        #if canImport(Glibc)
        _ = posix_fadvise(file.descriptor, 0, off_t(size), POSIX_FADV_SEQUENTIAL)
        #endif
        let window = UnsafeMutableRawBufferPointer.allocate(byteCount: min(end, Self.checksumWindow), alignment: 8)
        defer { window.deallocate() }
        var checksum: UInt = 0
        var done = 0
        while done < end {
            let length = min(end - done, window.count)
            let part = UnsafeMutableRawBufferPointer(rebasing: window[0..<length])
            try file.read(into: part, at: done)
            checksum = crc32(checksum, part.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(length))
            done += length
        }
        guard UInt64(checksum) == stored else {
            throw IndexFileError(.corrupt, path: path, "checksum mismatch")
        }
    }

    /// Whether every value was read.
    var isAtEnd: Bool { offset == end }

    func uint64() throws(IndexFileError) -> UInt64 {
        guard end - offset >= 8 else { throw IndexFileError(.truncated, path: path, "a value past the end at \(offset)") }
        defer { offset += 8 }
        return try file.bytes(at: offset, count: 8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self).littleEndian }
    }

    func int64() throws(IndexFileError) -> Int64 { Int64(bitPattern: try uint64()) }

    /// A count or size that must fit in `limit`.
    func count(atMost limit: Int) throws(IndexFileError) -> Int {
        let value = try uint64()
        guard value <= UInt64(limit) else { throw IndexFileError(.inconsistent, path: path, "\(value) over \(limit) at \(offset - 8)") }
        return Int(value)
    }

    func bytes() throws(IndexFileError) -> [UInt8] { try array(of: UInt8.self) }

    /// An array of plain values, copied out of the mapping.
    func array<Element: BitwiseCopyable>(of _: Element.Type) throws(IndexFileError) -> [Element] {
        let stride = MemoryLayout<Element>.stride
        let count = try count(atMost: (end - offset) / stride)
        let length = count * stride
        // An empty array is `[]`, not one of capacity 0 through `unsafeUninitializedCapacity`: that
        // is the runtime's shared empty storage, whose count the initializer writes (0 over 0), and
        // ThreadSanitizer reports two loads on the cores at once as a race on `_swiftEmptyArrayStorage`.
        var failure: IndexFileError?
        let start = offset
        let array =
            count == 0
            ? []
            : [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
                do throws(IndexFileError) {
                    try file.read(into: UnsafeMutableRawBufferPointer(start: buffer.baseAddress, count: length), at: start)
                    initialized = count
                } catch {
                    failure = error
                    initialized = 0
                }
            }
        if let failure { throw failure }
        offset += length
        offset += (IndexFileWriter.alignment - offset % IndexFileWriter.alignment) % IndexFileWriter.alignment
        guard offset <= end else { throw IndexFileError(.truncated, path: path, "padding past the end") }
        return array
    }

    /// Skips an array of plain values, left in the file (read later, from `file`), with
    /// `count` elements if given: where its values start, and how many there are.
    func skipArray<Element: BitwiseCopyable>(of _: Element.Type, count expected: Int? = nil) throws(IndexFileError) -> (offset: Int, count: Int) {
        let stride = MemoryLayout<Element>.stride
        let count = try count(atMost: (end - offset) / stride)
        if let expected { try check(count == expected, "\(count) values where \(expected) belong") }
        let start = offset
        offset += count * stride
        offset += (IndexFileWriter.alignment - offset % IndexFileWriter.alignment) % IndexFileWriter.alignment
        guard offset <= end else { throw IndexFileError(.truncated, path: path, "padding past the end") }
        return (start, count)
    }

    /// An array of `count` elements exactly.
    func array<Element: BitwiseCopyable>(of type: Element.Type, count expected: Int) throws(IndexFileError) -> [Element] {
        let array = try array(of: type)
        guard array.count == expected else {
            throw IndexFileError(.inconsistent, path: path, "\(array.count) values where \(expected) belong")
        }
        return array
    }

    /// Throws `inconsistent` with `detail` unless `condition` holds.
    func check(_ condition: Bool, _ detail: @autoclosure () -> String) throws(IndexFileError) {
        guard condition else { throw IndexFileError(.inconsistent, path: path, detail()) }
    }
}
