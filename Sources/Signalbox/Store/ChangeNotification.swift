import Foundation

/// What a commit's NOTIFY carries: the new head, and the changes the commit made when they fit
/// in PostgreSQL's payload limit, so that the other replicas apply them without reading the log.
///
/// The payload is `HEAD COUNT CARRIED ORIGIN` followed by `CARRIED` changes (0 when even the first
/// does not fit: read the log), each `␠K,C,I,B:` and then the collection's,
/// the id's and the body's bytes (`K` the kind, `d` or `s`; `C`, `I`, `B` byte counts, `B` -1 for
/// no body). The commit numbered its `COUNT` changes `HEAD - COUNT + 1 … HEAD`; the first
/// `CARRIED` of them are here, in order. `ORIGIN` names the store (the replica) that committed:
/// a replica does not decode its own commits, which it holds once their answer comes. `HEAD` alone
/// is what replicas before issue 27's NOTIFY payloads send (and still read: a rolling upgrade
/// mixes them). A notification is sent only when its transaction commits,
/// and is seen by a listener only once its changes are visible (PostgreSQL checks the sender's
/// transaction against the listener's snapshot), so it tells nothing a read of the log would not.
struct ChangeNotification: Equatable, Sendable {
    /// The head after the commit.
    let head: Int64
    /// How many changes the commit made, ending at `head`.
    let count: Int64
    /// The first of them, in order: all of them, some or none.
    let changes: [StoredChange]
    /// The store that committed them (``PostgresStore/origin``); empty for the head alone.
    let origin: String

    /// Whether every change of the commit is carried (not so for the head alone).
    var isComplete: Bool { count > 0 && Int64(changes.count) == count }

    /// PostgreSQL refuses a payload of 8,000 bytes or more; the head, counts and origin in front take at most 80.
    static let maxCarriedBytes = 7_900

    /// What follows the head in the payload of a commit of `changes` (numbered in order, the last
    /// one the head) by `origin` (letters and digits): as many of them, from the first, as fit in
    /// ``maxCarriedBytes``.
    static func tail(for changes: [(kind: StoredChangeKind, collection: String, id: String, body: String?)], origin: String) -> String {
        // Written as bytes: string interpolation cost about 6,000 instructions a change.
        var entries: [UInt8] = []
        entries.reserveCapacity(min(maxCarriedBytes, 64 + changes.count * 128))
        var carried = 0
        for change in changes {
            let (collection, id, body) = (change.collection.utf8, change.id.utf8, change.body?.utf8)
            var head: [UInt8] = [UInt8(ascii: " "), change.kind == .schema ? UInt8(ascii: "s") : UInt8(ascii: "d"), UInt8(ascii: ",")]
            appendDecimal(collection.count, to: &head)
            head.append(UInt8(ascii: ","))
            appendDecimal(id.count, to: &head)
            head.append(UInt8(ascii: ","))
            appendDecimal(body?.count ?? -1, to: &head)
            head.append(UInt8(ascii: ":"))
            guard entries.count + head.count + collection.count + id.count + (body?.count ?? 0) <= maxCarriedBytes else { break }
            entries += head
            entries += collection
            entries += id
            if let body { entries += body }
            carried += 1
        }
        var front: [UInt8] = [UInt8(ascii: " ")]
        appendDecimal(changes.count, to: &front)
        front.append(UInt8(ascii: " "))
        appendDecimal(carried, to: &front)
        front.append(UInt8(ascii: " "))
        front += origin.utf8
        return String(decoding: front + entries, as: UTF8.self)
    }

    /// `value` in decimal (a leading `-` when negative).
    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let start = bytes.count
        var magnitude = value.magnitude
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    /// Reads a payload; nil when it is not one of ours (the caller then reads the log).
    init?(payload: String) {
        var reader = Reader(bytes: Array(payload.utf8))
        guard let head = reader.integer(endingWith: nil), head >= 0 else { return nil }
        self.head = head
        if reader.atEnd {
            (count, changes, origin) = (0, [], "")
            return
        }
        guard reader.skip(UInt8(ascii: " ")), let count = reader.integer(endingWith: UInt8(ascii: " ")), let carried = reader.integer(endingWith: nil),
            count >= 1, carried >= 0, carried <= count, head - count >= 0, reader.skip(UInt8(ascii: " ")), let origin = reader.word()
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
        self.origin = origin
    }

    init(head: Int64, count: Int64, changes: [StoredChange], origin: String) {
        (self.head, self.count, self.changes, self.origin) = (head, count, changes, origin)
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

        /// Letters and digits up to a space or the end (at least one).
        mutating func word() -> String? {
            let start = position
            while position < bytes.count, bytes[position] != UInt8(ascii: " ") {
                guard (bytes[position] >= UInt8(ascii: "0") && bytes[position] <= UInt8(ascii: "9"))
                    || (bytes[position] >= UInt8(ascii: "a") && bytes[position] <= UInt8(ascii: "z"))
                else { return nil }
                position += 1
            }
            guard position > start else { return nil }
            return String(decoding: bytes[start..<position], as: UTF8.self)
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
            // ASCII (ids and collection names mostly are) needs no validation: the generic
            // `String(validating:)` cost about 1,000 instructions a call in runtime type lookups.
            if slice.allSatisfy({ $0 < 0x80 }) { return String(decoding: slice, as: UTF8.self) }
            return String(validating: slice, as: UTF8.self)
        }
    }
}
