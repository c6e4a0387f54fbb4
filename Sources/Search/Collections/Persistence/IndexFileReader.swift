import CZlib
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads one file written by `IndexFileWriter`: maps it, checks its magic and its checksum over
/// every byte, then hands out its values in order, each bounds-checked (a count that runs past
/// the end is an error, never a read out of the file).
final class IndexFileReader {
    let path: String
    /// The mapping; arrays handed out as `MappedArray` keep it after the reader is gone.
    let file: MappedFile
    private let base: UnsafeRawPointer
    private let size: Int
    /// Where the checksum starts: the end of the values.
    private let end: Int
    private var offset = IndexFileWriter.alignment

    /// Maps `path` and checks it; `magic` is the 8 bytes it must start with.
    init(path: String, magic: [UInt8]) throws(IndexFileError) {
        self.path = path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw IndexFileError(errno == ENOENT ? .missing : .io, path: path, "open: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw IndexFileError(.io, path: path, "fstat: \(String(cString: strerror(errno)))") }
        size = Int(status.st_size)
        let minimum = IndexFileWriter.alignment * 2
        guard size >= minimum else { throw IndexFileError(.truncated, path: path, "\(size) bytes") }
        guard let file = MappedFile(descriptor: descriptor, size: size) else {
            throw IndexFileError(.io, path: path, "mmap: \(String(cString: strerror(errno)))")
        }
        self.file = file
        // The whole file is read once for the checksum, and again for the copies: read ahead.
        file.advise(0, size, MADV_WILLNEED)
        base = file.base
        end = size - IndexFileWriter.alignment
        guard memcmp(base, magic, magic.count) == 0 else {
            throw IndexFileError(.unknownFormat, path: path, "not an index file of this version")
        }
        let stored = base.loadUnaligned(fromByteOffset: end, as: UInt64.self).littleEndian
        // crc32 takes at most 4 GiB a call.
        var checksum: UInt = 0
        var done = 0
        while done < end {
            let length = min(end - done, 1 << 30)
            checksum = crc32(checksum, (base + done).assumingMemoryBound(to: UInt8.self), UInt32(length))
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
        return base.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian
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
        // No array of capacity 0 through `unsafeUninitializedCapacity`: it is the runtime's shared
        // empty storage, whose count the initializer writes (0 over 0), and ThreadSanitizer
        // reports two loads on the cores at once as a race on `_swiftEmptyArrayStorage`.
        let array =
            count == 0
            ? []
            : [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
                UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: base + offset, byteCount: length)
                initialized = count
            }
        offset += length
        offset += (IndexFileWriter.alignment - offset % IndexFileWriter.alignment) % IndexFileWriter.alignment
        guard offset <= end else { throw IndexFileError(.truncated, path: path, "padding past the end") }
        return array
    }

    /// An array of plain values left in the mapping (not copied), with `count` elements if given.
    func mappedArray<Element: BitwiseCopyable>(of _: Element.Type, count expected: Int? = nil) throws(IndexFileError) -> MappedArray<Element> {
        let stride = MemoryLayout<Element>.stride
        let count = try count(atMost: (end - offset) / stride)
        if let expected { try check(count == expected, "\(count) values where \(expected) belong") }
        try check(offset % MemoryLayout<Element>.alignment == 0, "a misaligned array")
        let array = MappedArray<Element>(file: file, offset: offset, count: count)
        offset += count * stride
        offset += (IndexFileWriter.alignment - offset % IndexFileWriter.alignment) % IndexFileWriter.alignment
        guard offset <= end else { throw IndexFileError(.truncated, path: path, "padding past the end") }
        return array
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
