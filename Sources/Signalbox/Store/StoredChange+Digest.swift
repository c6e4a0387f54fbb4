import Base
import Foundation

extension StoredChange {
    /// A change's identity: its collection, kind, document id and its body's bytes (none for a
    /// delete). Two histories that give one sequence number changes of different digests part
    /// there (``IndexMark``, ``HistoryCheck``).
    static func digest(collection: String = citiesCollection, kind: StoredChangeKind = .document, id: String, body: Data?) -> UInt64 {
        var hash = FNV1a()
        hash.combine(Array(collection.utf8) + [0x00] + Array(kind.rawValue.utf8) + [0x00])
        hash.combine(Array(id.utf8))
        if let body { hash.combine(Array(body)) } else { hash.combine([0xff, 0x00]) }
        return hash.value
    }

    /// This change's ``digest(collection:kind:id:body:)``.
    var digest: UInt64 { Self.digest(collection: collection, kind: kind, id: id, body: body) }
}
