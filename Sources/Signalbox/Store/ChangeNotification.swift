import Foundation

/// What a commit's NOTIFY carries: the new head, and the changes the commit made when they fit
/// in PostgreSQL's payload limit, so that the other replicas apply them without reading the log.
///
/// The payload is `HEAD` alone (nothing carried: read the log), or
/// `HEAD COUNT CARRIED` followed by `CARRIED` changes, each `␠K,C,I,B:` and then the collection's,
/// the id's and the body's bytes (`K` the kind, `d` or `s`; `C`, `I`, `B` byte counts, `B` -1 for
/// no body). The commit numbered its `COUNT` changes `HEAD - COUNT + 1 … HEAD`; the first
/// `CARRIED` of them are here, in order. A notification is sent only when its transaction commits,
/// and is seen by a listener only once its changes are visible (PostgreSQL checks the sender's
/// transaction against the listener's snapshot), so it tells nothing a read of the log would not.
struct ChangeNotification: Equatable, Sendable {
    /// The head after the commit.
    let head: Int64
    /// How many changes the commit made, ending at `head`.
    let count: Int64
    /// The first of them, in order: all of them, some or none.
    let changes: [StoredChange]

    /// Whether every change of the commit is carried (not so for the head alone).
    var isComplete: Bool { count > 0 && Int64(changes.count) == count }

    /// PostgreSQL refuses a payload of 8,000 bytes or more; the head and counts in front take at most 60.
    static let maxCarriedBytes = 7_900

    /// What follows the head in the payload of a commit of `changes` (numbered in order, the last
    /// one the head): as many of them, from the first, as fit in ``maxCarriedBytes``; empty when
    /// none does, so the payload is the head alone.
    static func tail(for changes: [(kind: StoredChangeKind, collection: String, id: String, body: String?)]) -> String {
        var entries = ""
        var carried = 0
        for change in changes {
            let body = change.body.map { "\($0.utf8.count)" } ?? "-1"
            let entry = " \(change.kind == .schema ? "s" : "d"),\(change.collection.utf8.count),\(change.id.utf8.count),\(body):"
                + change.collection + change.id + (change.body ?? "")
            guard entries.utf8.count + entry.utf8.count <= maxCarriedBytes else { break }
            entries += entry
            carried += 1
        }
        guard carried > 0 else { return "" }
        return " \(changes.count) \(carried)" + entries
    }

    /// Reads a payload; nil when it is not one of ours (the caller then reads the log).
    init?(payload: String) {
        var reader = Reader(bytes: Array(payload.utf8))
        guard let head = reader.integer(endingWith: nil), head >= 0 else { return nil }
        self.head = head
        if reader.atEnd {
            (count, changes) = (0, [])
            return
        }
        guard reader.skip(UInt8(ascii: " ")), let count = reader.integer(endingWith: UInt8(ascii: " ")), let carried = reader.integer(endingWith: nil),
            count >= 1, carried >= 1, carried <= count, head - count >= 0
        else { return nil }
        var changes: [StoredChange] = []
        changes.reserveCapacity(Int(carried))
        for offset in 0..<carried {
            guard reader.skip(UInt8(ascii: " ")), let kind = reader.kind(), reader.skip(UInt8(ascii: ",")),
                let collectionBytes = reader.integer(endingWith: UInt8(ascii: ",")),
                let idBytes = reader.integer(endingWith: UInt8(ascii: ",")),
                let bodyBytes = reader.integer(endingWith: UInt8(ascii: ":")),
                let collection = reader.string(collectionBytes), let id = reader.string(idBytes)
            else { return nil }
            var body: Data?
            if bodyBytes >= 0 {
                guard let bytes = reader.bytes(bodyBytes) else { return nil }
                body = Data(bytes)
            } else if bodyBytes != -1 {
                return nil
            }
            changes.append(StoredChange(collection: collection, kind: kind, id: id, body: body, sequence: head - count + 1 + offset))
        }
        guard reader.atEnd else { return nil }
        self.count = count
        self.changes = changes
    }

    init(head: Int64, count: Int64, changes: [StoredChange]) {
        (self.head, self.count, self.changes) = (head, count, changes)
    }

    /// Reads a payload's bytes front to back; every read checks the bytes are there.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var atEnd: Bool { position == bytes.count }

        /// A decimal integer (a leading `-` allowed), then `terminator` (skipped); with
        /// `terminator` nil, up to a space (not skipped) or the end.
        mutating func integer(endingWith terminator: UInt8?) -> Int64? {
            var negative = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") {
                negative = true
                position += 1
            }
            var value: Int64 = 0
            var digits = 0
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
                guard digits < 18 else { return nil }
                value = value * 10 + Int64(bytes[position] - UInt8(ascii: "0"))
                position += 1
                digits += 1
            }
            guard digits > 0 else { return nil }
            if let terminator {
                guard skip(terminator) else { return nil }
            } else if !atEnd, bytes[position] != UInt8(ascii: " ") {
                return nil
            }
            return negative ? -value : value
        }

        mutating func skip(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        mutating func kind() -> StoredChangeKind? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            switch bytes[position] {
            case UInt8(ascii: "d"): return .document
            case UInt8(ascii: "s"): return .schema
            default: return nil
            }
        }

        mutating func bytes(_ count: Int64) -> ArraySlice<UInt8>? {
            guard count >= 0, count <= bytes.count - position else { return nil }
            defer { position += Int(count) }
            return bytes[position..<position + Int(count)]
        }

        mutating func string(_ count: Int64) -> String? {
            guard let slice = bytes(count) else { return nil }
            return String(validating: slice, as: UTF8.self)
        }
    }
}
