#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file mapped read-only into memory, unmapped when the last user lets go. What is read
/// through it comes from the page cache: memory the kernel can take back, not the process's own.
///
/// Segment files are written once under a new name and never changed in place (a save
/// renames a finished file in; a removed one stays readable while mapped), so a mapping
/// always sees the bytes it was checked with.
final class MappedFile: @unchecked Sendable {
    let base: UnsafeRawPointer
    let size: Int

    /// Maps `size` bytes of the open file `descriptor`.
    init?(descriptor: Int32, size: Int) {
        guard size > 0, let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else { return nil }
        base = UnsafeRawPointer(mapped)
        self.size = size
    }

    /// Maps the file at `path`, whole.
    convenience init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        self.init(descriptor: descriptor, size: Int(status.st_size))
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), size)
    }

    /// Tells the kernel how the range will be read.
    func advise(_ offset: Int, _ length: Int, _ advice: Int32) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = offset / page * page
        madvise(UnsafeMutableRawPointer(mutating: base + start), length + offset - start, advice)
    }
}

/// A run of plain values inside a `MappedFile` (which it keeps mapped).
struct MappedArray<Element: BitwiseCopyable>: @unchecked Sendable {
    let file: MappedFile
    let offset: Int
    let count: Int

    var buffer: UnsafeBufferPointer<Element> {
        UnsafeBufferPointer(start: (file.base + offset).assumingMemoryBound(to: Element.self), count: count)
    }

    @inline(__always) subscript(index: Int) -> Element {
        precondition(index >= 0 && index < count)
        return (file.base + offset).load(fromByteOffset: index * MemoryLayout<Element>.stride, as: Element.self)
    }
}
