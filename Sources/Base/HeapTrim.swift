#if canImport(Glibc)
import Glibc
#endif

/// Gives the heap's free memory back to the system.
///
/// glibc keeps what is freed in its arenas for later allocations, and a build of segments frees
/// a lot at once (the decoded documents, the tokenizers' chunks, a merge's inputs, a segment's
/// bodies once they are in its file): 374 MiB of 990 MiB resident right after an import of
/// 1,000,000 documents (issue 25). Called after such work, off the request path; it walks the
/// arenas (milliseconds) and does nothing where there is no glibc.
public enum HeapTrim {
    public static func release() {
        #if canImport(Glibc)
        _ = trim?(0)
        #endif
    }

    #if canImport(Glibc)
    /// glibc's `malloc_trim`, looked up once: `<malloc.h>` is not in the Glibc module.
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
    #endif
}
