import CZlib
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one persisted index file: a magic number, sections of plain values and arrays (each
/// array its count then its raw bytes, padded to 8), then the CRC-32 of everything before it.
///
/// The file is written under a temporary name, synced, then renamed over the final one, so a
/// crash leaves the old file or the new one, never half of one. Arrays go to the file straight
/// from their storage: a segment of a million documents is not copied into a buffer first.
struct IndexFileWriter {
    /// Values are aligned to this, so that a reader can copy arrays out with no shifting.
    static let alignment = 8

    private let path: String
    private let temporaryPath: String
    private var descriptor: Int32
    private var checksum: UInt = 0
    private var buffered: [UInt8] = []
    private(set) var bytesWritten = 0

    /// Starts `path` (under a temporary name) with `magic`, which must be 8 bytes.
    init(path: String, magic: [UInt8]) throws(IndexFileError) {
        precondition(magic.count == Self.alignment)
        self.path = path
        temporaryPath = path + ".partial"
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw IndexFileError(.io, path: temporaryPath, "open: \(String(cString: strerror(errno)))") }
        try append(array: magic, counted: false)
    }

    mutating func append(_ value: UInt64) throws(IndexFileError) {
        try append(array: [value.littleEndian], counted: false)
    }

    mutating func append(_ value: Int64) throws(IndexFileError) { try append(UInt64(bitPattern: value)) }

    /// A byte string: its length, its bytes, padding.
    mutating func append(bytes: [UInt8]) throws(IndexFileError) {
        try append(array: bytes)
    }

    /// An array of plain values (little-endian machines only, as every platform Swift serves on Linux).
    mutating func append<Element: BitwiseCopyable>(array: [Element]) throws(IndexFileError) {
        try append(array: array, counted: true)
    }

    /// `count` values laid out in `raw`, as `append(array:)` writes them; returns where the
    /// values start in the file.
    @discardableResult
    mutating func append(count: Int, raw: UnsafeRawBufferPointer) throws(IndexFileError) -> Int {
        try append(UInt64(count))
        let start = bytesWritten
        try append(raw: raw)
        let padding = (Self.alignment - bytesWritten % Self.alignment) % Self.alignment
        if padding > 0 {
            let zeros = [UInt8](repeating: 0, count: padding)
            try zeros.withUnsafeBytes { bytes in Result { () throws(IndexFileError) in try append(raw: bytes) } }.get()
        }
        return start
    }

    private mutating func append<Element: BitwiseCopyable>(array: [Element], counted: Bool) throws(IndexFileError) {
        if counted { try append(UInt64(array.count)) }
        // `withUnsafeBytes` rethrows untyped errors: the typed one travels in a Result.
        try array.withUnsafeBytes { bytes in Result { () throws(IndexFileError) in try append(raw: bytes) } }.get()
        let padding = (Self.alignment - bytesWritten % Self.alignment) % Self.alignment
        if padding > 0 {
            let zeros = [UInt8](repeating: 0, count: padding)
            try zeros.withUnsafeBytes { bytes in Result { () throws(IndexFileError) in try append(raw: bytes) } }.get()
        }
    }

    private mutating func append(raw bytes: UnsafeRawBufferPointer) throws(IndexFileError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        var done = 0
        while done < bytes.count {  // crc32 takes at most 4 GiB a call
            let length = min(bytes.count - done, 1 << 30)
            checksum = crc32(checksum, (base + done).assumingMemoryBound(to: UInt8.self), UInt32(length))
            done += length
        }
        bytesWritten += bytes.count
        // Small values are gathered; large arrays go straight from their storage.
        if bytes.count < 1 << 16 {
            buffered.append(contentsOf: bytes)
            if buffered.count >= 1 << 20 { try flush() }
            return
        }
        try flush()
        try writeAll(bytes)
    }

    private mutating func flush() throws(IndexFileError) {
        guard !buffered.isEmpty else { return }
        let pending = buffered
        buffered.removeAll(keepingCapacity: true)
        try pending.withUnsafeBytes { bytes in Result { () throws(IndexFileError) in try writeAll(bytes) } }.get()
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(IndexFileError) {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw IndexFileError(.io, path: temporaryPath, "write: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// Appends the checksum, syncs, and renames the file into place.
    mutating func finish() throws(IndexFileError) {
        var trailer = UInt64(checksum).littleEndian
        withUnsafeBytes(of: &trailer) { buffered.append(contentsOf: $0) }
        try flush()
        guard fsync(descriptor) == 0 else { throw IndexFileError(.io, path: temporaryPath, "fsync: \(String(cString: strerror(errno)))") }
        close(descriptor)
        descriptor = -1
        guard rename(temporaryPath, path) == 0 else {
            throw IndexFileError(.io, path: path, "rename: \(String(cString: strerror(errno)))")
        }
    }

    /// Closes and removes the partial file (after a failure).
    mutating func abandon() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(temporaryPath)
    }
}
