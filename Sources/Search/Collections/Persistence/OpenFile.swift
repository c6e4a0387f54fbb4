#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A saved index file open for reading, closed when the last user lets go. Read with `pread`,
/// never mapped: if another process truncates the file, a read comes up short (an error the
/// caller handles), where a read through a mapping of the lost pages would kill the whole
/// server with SIGBUS.
final class OpenFile: Sendable {
    let path: String
    let descriptor: Int32
    /// Its size when opened.
    let size: Int

    /// Opens `path`: `missing` when there is no such file, `io` when it cannot be opened.
    init(path: String) throws(IndexFileError) {
        self.path = path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw IndexFileError(errno == ENOENT ? .missing : .io, path: path, "open: \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw IndexFileError(.io, path: path, "fstat: \(reason)")
        }
        self.descriptor = descriptor
        size = Int(status.st_size)
    }

    deinit {
        close(descriptor)
    }

    /// Fills `buffer` with the bytes from `offset`: `truncated` when the file ends first (it
    /// shrank since it was opened), `io` when the read fails.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(IndexFileError) {
        guard let base = buffer.baseAddress else { return }
        var done = 0
        while done < buffer.count {
            let read = pread(descriptor, base + done, buffer.count - done, off_t(offset + done))
            if read < 0 {
                if errno == EINTR { continue }
                throw IndexFileError(.io, path: path, "read at \(offset + done): \(String(cString: strerror(errno)))")
            }
            guard read > 0 else {
                throw IndexFileError(.truncated, path: path, "it ends before \(offset + buffer.count) (it shrank since it was opened)")
            }
            done += read
        }
    }

    /// `count` bytes from `offset`.
    func bytes(at offset: Int, count: Int) throws(IndexFileError) -> [UInt8] {
        var failure: IndexFileError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(IndexFileError) {
                try read(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }
}
