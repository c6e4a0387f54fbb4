import Base
import Foundation

extension StoredChange {
    /// A change's identity: its collection, kind, document id and its body's bytes (none for a
    /// delete). Two histories that give one sequence number changes of different digests part
    /// there (``IndexMark``, ``HistoryCheck``).
    static func digest(collection: String = citiesCollection, kind: StoredChangeKind = .document, id: String, body: Data?) -> UInt64 {
        // The bytes hashed in place (an import digests every change it applies): the same
        // value as `combine` of `collection 0 kind 0`, then of the id, then of the body or `ff 00`.
        var hash = FNV1a()
        hash.mix(collection)
        hash.mix(byte: 0x00)
        hash.mix(kind.rawValue)
        hash.mix(byte: 0x00)
        hash.endPart()
        hash.mix(id)
        hash.endPart()
        if let body { body.withUnsafeBytes { hash.combine($0) } } else { hash.combine([0xff, 0x00]) }
        return hash.value
    }

    /// This change's ``digest(collection:kind:id:body:)``.
    var digest: UInt64 { Self.digest(collection: collection, kind: kind, id: id, body: body) }
}
