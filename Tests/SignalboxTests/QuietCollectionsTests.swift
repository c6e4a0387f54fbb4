import Testing

@testable import Signalbox

/// When the heap is trimmed after writes (`QuietCollections`): only once every collection's
/// revision held for a check after a change, and once per change, with or without an index
/// directory (the service trims either way).
@Suite struct QuietCollectionsTests {
    @Test func theHeapIsTrimmedOnceEveryCollectionIsQuietAfterAChange() {
        let quiet = QuietCollections()
        // First sight: every collection counts as changed.
        let first = quiet.check([("a", 1), ("b", 1)])
        #expect(first.quiet.isEmpty && !first.trimHeap)
        // `a` still being written: not yet.
        let writing = quiet.check([("a", 2), ("b", 1)])
        #expect(writing.quiet == ["b"] && !writing.trimHeap)
        // Both held: trim, once.
        let held = quiet.check([("a", 2), ("b", 1)])
        #expect(held.quiet == ["a", "b"] && held.trimHeap)
        #expect(quiet.check([("a", 2), ("b", 1)]).trimHeap == false)
        // A write to `b`, then quiet again: trim again.
        #expect(quiet.check([("a", 2), ("b", 2)]).trimHeap == false)
        #expect(quiet.check([("a", 2), ("b", 2)]).trimHeap)
    }

    @Test func aCollectionGoneDoesNotHoldTheTrim() {
        let quiet = QuietCollections()
        _ = quiet.check([("a", 1), ("b", 1)])
        _ = quiet.check([("a", 1), ("b", 1)])
        #expect(quiet.check([("a", 2)]).trimHeap == false)
        #expect(quiet.check([("a", 2)]).trimHeap)
    }
}
