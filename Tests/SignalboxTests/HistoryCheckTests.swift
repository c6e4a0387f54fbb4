import Base
import Foundation
import Testing
@testable import Signalbox

/// After a failover, a replica compares the changes it applied with the store's log
/// (issue 27): the same history, where the two part, or that it cannot tell.
@Suite struct HistoryCheckTests {
    static func change(_ sequence: Int64, _ id: String, _ body: String? = "{}") -> StoredChange {
        StoredChange(id: id, body: body.map { Data($0.utf8) }, sequence: sequence)
    }

    static func applied(_ changes: [StoredChange]) -> [HistoryCheck.Applied] {
        changes.map {
            .init(
                sequence: $0.sequence, collection: $0.collection, kind: $0.kind, id: $0.id,
                digest: HistoryCheck.digest(collection: $0.collection, kind: $0.kind, id: $0.id, body: $0.body))
        }
    }

    let old = (1...10).map { change($0, "d\($0)", #"{"n":\#($0)}"#) }

    /// A digest is kept in saved indexes (``IndexMark``) and compared across versions: hashing
    /// the bytes in place gives what the arrays of the first version gave, and a pinned value.
    @Test func aDigestIsTheSameAsHashingTheJoinedArrays() {
        func arrays(_ collection: String, _ kind: StoredChangeKind, _ id: String, _ body: Data?) -> UInt64 {
            var hash = FNV1a()
            hash.combine(Array(collection.utf8) + [0x00] + Array(kind.rawValue.utf8) + [0x00])
            hash.combine(Array(id.utf8))
            if let body { hash.combine(Array(body)) } else { hash.combine([0xff, 0x00]) }
            return hash.value
        }
        let cases: [(String, StoredChangeKind, String, Data?)] = [
            ("cities", .document, "d1", Data(#"{"id":"d1","name":"Town"}"#.utf8)), ("shop", .document, "a", nil),
            ("shop", .schema, "shop", Data("{}".utf8)), ("", .document, "", Data()), ("théâtre", .document, "été/2", Data([0, 255, 7])),
        ]
        for (collection, kind, id, body) in cases {
            #expect(HistoryCheck.digest(collection: collection, kind: kind, id: id, body: body) == arrays(collection, kind, id, body))
        }
        #expect(HistoryCheck.digest(id: "d1", body: Data("{}".utf8)) == 0x540d0c552686110f)
    }

    @Test func theSameChangesAreConsistentAlsoWhenTheStoreIsAhead() {
        #expect(HistoryCheck.compare(applied: Self.applied(old), stored: old, storeHead: 10) == .consistent)
        #expect(HistoryCheck.compare(applied: Self.applied(Array(old.prefix(6))), stored: Array(old.prefix(6)), storeHead: 10) == .consistent)
        #expect(HistoryCheck.compare(applied: [], stored: old, storeHead: 10) == .consistent)
    }

    @Test func aStoreThatLostTheLastChangesPartsAfterTheLastItHolds() {
        // Asynchronous replication: the promoted standby has 1...7; nothing written since.
        #expect(HistoryCheck.compare(applied: Self.applied(old), stored: Array(old.prefix(7)), storeHead: 7) == .parted(lastCommon: 7))
        // ...and new writes took 8 and 9 with other changes.
        let new = Array(old.prefix(7)) + [Self.change(8, "n8"), Self.change(9, "n9")]
        #expect(HistoryCheck.compare(applied: Self.applied(old), stored: new, storeHead: 9) == .parted(lastCommon: 7))
        // The same id with another body is another change.
        let rewritten = Array(old.prefix(7)) + [Self.change(8, "d8", #"{"n":"other"}"#)]
        #expect(HistoryCheck.compare(applied: Self.applied(old), stored: rewritten, storeHead: 8) == .parted(lastCommon: 7))
        // A delete is not an upsert of the same id.
        let deleted = Array(old.prefix(7)) + [Self.change(8, "d8", nil)]
        #expect(HistoryCheck.compare(applied: Self.applied(old), stored: deleted, storeHead: 8) == .parted(lastCommon: 7))
    }

    @Test func changesOlderThanTheStoresLogAreSkippedNotCounted() {
        // The store's log keeps 5...10 only: 1...4 cannot be compared, 5...10 match.
        #expect(HistoryCheck.compare(applied: Self.applied(old), stored: Array(old.suffix(6)), storeHead: 10) == .consistent)
        // Nothing comparable at all: the replica cannot tell.
        #expect(HistoryCheck.compare(applied: Self.applied(Array(old.prefix(3))), stored: Array(old.suffix(6)), storeHead: 10) == .unknown)
    }

    @Test func partingBeforeAnythingBothKeepIsUnknown() {
        // Every change kept here differs from the store's: where they part is older than both windows.
        let new = (1...10).map { Self.change($0, "n\($0)") }
        #expect(HistoryCheck.compare(applied: Self.applied(old), stored: new, storeHead: 10) == .unknown)
        // The store has not reached the oldest change kept here.
        #expect(HistoryCheck.compare(applied: Self.applied(Array(old.suffix(3))), stored: [], storeHead: 5) == .unknown)
    }

    @Test func theSameIdAndBodyInAnotherCollectionIsAnotherChange() {
        var other = Self.change(8, "d8", #"{"n":8}"#)
        other.collection = "products"
        #expect(HistoryCheck.compare(applied: Self.applied(old), stored: Array(old.prefix(7)) + [other], storeHead: 8) == .parted(lastCommon: 7))
    }
}
