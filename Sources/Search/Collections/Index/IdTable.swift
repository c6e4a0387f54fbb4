/// Finds a segment's document number by id: open addressing over the numbers (4 bytes a slot,
/// half full), the ids themselves kept once in the segment. A `[String: UInt32]` took about
/// 30 bytes a document.
///
/// A slot also keeps a tag, four more bits of its id's hash, in the bits the number leaves
/// free: a probe reads an id (a cache miss in the segment's id array) only when the tags
/// agree, one time in 16 for another id. An id that is not there, as every id of an import of
/// new documents is in every segment, is mostly answered by the one slot read.
struct IdTable: Sendable {
    /// The id's number + 1 (at most `SegmentText.maxDocuments`: 28 bits) below ``tagShift``,
    /// its tag above; 0 when empty.
    let slots: [UInt32]
    private let mask: Int

    static let tagShift: UInt32 = 28
    static let numberMask: UInt32 = (1 << tagShift) - 1

    /// Why persisted slots were refused.
    enum SlotsError: Error, Equatable {
        case notAPowerOfTwo
        case idNotFound(number: Int)
    }

    init(_ ids: [String]) {
        precondition(ids.count <= SegmentText.maxDocuments)
        var size = 16
        while size < ids.count * 2 { size <<= 1 }
        var slots = [UInt32](repeating: 0, count: size)
        for (number, id) in ids.enumerated() {
            let hash = Self.hash(id)
            var slot = hash & (size - 1)
            while slots[slot] != 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = UInt32(number + 1) | Self.tag(hash)
        }
        self.slots = slots
        mask = size - 1
    }

    /// A table as persisted (``persistedSlots``: numbers without tags, the segment file format
    /// SBSEG002 as it was before tags), its tags derived again from `ids`, the ids' UTF-8
    /// bytes, id `n` ending at `ends[n]`. Refused when an id is not found where its hash leads.
    init(persisted: [UInt32], ids bytes: UnsafeBufferPointer<UInt8>, ends: [UInt32]) throws(SlotsError) {
        guard persisted.count >= 16, persisted.count & (persisted.count - 1) == 0 else { throw .notAPowerOfTwo }
        var slots = persisted
        let mask = slots.count - 1
        var start = 0
        for (number, end) in ends.enumerated() {
            let hash = Self.hash(UnsafeBufferPointer(rebasing: bytes[start..<Int(end)]))
            start = Int(end)
            var slot = hash & mask, probes = 0
            while slots[slot] & Self.numberMask != UInt32(number + 1) {
                probes += 1
                guard slots[slot] != 0, probes < slots.count else { throw .idNotFound(number: number) }
                slot = (slot + 1) & mask
            }
            slots[slot] |= Self.tag(hash)
        }
        self.slots = slots
        self.mask = mask
    }

    /// The slots as a segment file keeps them: numbers only (see ``init(persisted:ids:ends:)``).
    var persistedSlots: [UInt32] { slots.map { $0 & Self.numberMask } }

    /// The number of the document with `id` among `ids` (the array the table was built from).
    func number(of id: String, in ids: [String]) -> UInt32? {
        number(of: id, hash: Self.hash(id), in: ids)
    }

    /// ``number(of:in:)`` with `id`'s ``hash(_:)`` computed by the caller: once for every
    /// segment a look-up visits, not once per segment.
    @inline(__always)
    func number(of id: String, hash: Int, in ids: [String]) -> UInt32? {
        number(of: id, hash: hash, firstSlot: slots[hash & mask], in: ids)
    }

    /// The slot `hash` leads to first (what ``number(of:hash:firstSlot:in:)`` starts from).
    @inline(__always)
    func firstSlot(_ hash: Int) -> UInt32 { slots[hash & mask] }

    /// ``number(of:hash:in:)`` given the content of the first slot (``firstSlot(_:)``), read
    /// by the caller ahead, in a loop of its own over a batch of ids: without a branch on each
    /// value, the cache misses of many ids overlap, instead of one a probe.
    @inline(__always)
    func number(of id: String, hash: Int, firstSlot: UInt32, in ids: [String]) -> UInt32? {
        let tag = Self.tag(hash)
        var slot = hash & mask
        var stored = firstSlot
        while stored != 0 {
            if stored & ~Self.numberMask == tag {
                let number = (stored & Self.numberMask) &- 1
                if ids[Int(number)] == id { return number }
            }
            slot = (slot + 1) & mask
            stored = slots[slot]
        }
        return nil
    }

    /// The tag of an id with `hash`: its top four bits (the slot comes from the low ones).
    @inline(__always)
    static func tag(_ hash: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: UInt(bitPattern: hash) >> 60) << tagShift
    }

    /// FNV-1a over the UTF-8 bytes (stable: the slots are persisted).
    static func hash(_ id: String) -> Int {
        var id = id
        return id.withUTF8 { hash($0) }
    }

    /// ``hash(_:)`` of an id's UTF-8 bytes.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 29))
    }
}
