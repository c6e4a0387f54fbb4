/// Finds a segment's document number by id: open addressing over the numbers (4 bytes a slot,
/// half full), the ids themselves kept once in the segment. A `[String: UInt32]` took about
/// 30 bytes a document.
struct IdTable: Sendable {
    /// Document number + 1; 0 when empty.
    let slots: [UInt32]
    private let mask: Int

    /// A table as persisted: `slots` a power of two long (at least 16), each 0 or a number + 1.
    init(slots: [UInt32]) {
        precondition(slots.count >= 16 && slots.count & (slots.count - 1) == 0)
        self.slots = slots
        mask = slots.count - 1
    }

    init(_ ids: [String]) {
        var size = 16
        while size < ids.count * 2 { size <<= 1 }
        var slots = [UInt32](repeating: 0, count: size)
        for (number, id) in ids.enumerated() {
            var slot = Self.hash(id) & (size - 1)
            while slots[slot] != 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = UInt32(number + 1)
        }
        self.slots = slots
        mask = size - 1
    }

    /// The number of the document with `id` among `ids` (the array the table was built from).
    func number(of id: String, in ids: [String]) -> UInt32? {
        number(of: id, hash: Self.hash(id), in: ids)
    }

    /// ``number(of:in:)`` with `id`'s ``hash(_:)`` computed by the caller: once for every
    /// segment a look-up visits, not once per segment.
    func number(of id: String, hash: Int, in ids: [String]) -> UInt32? {
        var slot = hash & mask
        while true {
            let stored = slots[slot]
            if stored == 0 { return nil }
            if ids[Int(stored - 1)] == id { return stored - 1 }
            slot = (slot + 1) & mask
        }
    }

    /// FNV-1a over the UTF-8 bytes (stable; the table is rebuilt with its segment anyway).
    static func hash(_ id: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 29))
    }
}
