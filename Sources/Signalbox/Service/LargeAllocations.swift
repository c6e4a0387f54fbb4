#if canImport(Glibc)
import Glibc
#endif

/// How the process's allocator treats the index's large arrays (a segment's postings, columns,
/// bodies: megabytes each, made and dropped by every merge).
///
/// glibc serves an allocation this large from its own mapping and gives it back on free, but it
/// raises that threshold each time such a block is freed (up to 32 MiB), after which the large
/// arrays of merges come from its heaps and are kept there, free but resident, after the merge:
/// an import of a million documents left hundreds of MiB so. A fixed threshold keeps every
/// large array returned to the system when freed.
enum LargeAllocations {
    /// Allocations from this size on are mapped on their own and unmapped when freed.
    static let ownMappingFrom: Int32 = 1 << 20
    /// glibc's `M_MMAP_THRESHOLD` (malloc.h, which the Glibc module does not bring in).
    private static let mmapThresholdParameter: Int32 = -3

    /// Sets the fixed threshold (once, before the index is built); false where the C library
    /// has no `mallopt` (not glibc).
    @discardableResult
    static func returnToTheSystemWhenFreed() -> Bool {
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        return unsafeBitCast(symbol, to: Mallopt.self)(mmapThresholdParameter, ownMappingFrom) == 1
        #else
        return false
        #endif
    }
}
