/// Dense ids for keys, runs of `Unit`s (a term's UTF-16 units, ``TermInterner``; a column value's
/// folded UTF-8 bytes, `StringColumn`'s), in order of first appearance, without a heap object or
/// a `String` per key: the keys live in one arena and an open-addressing table (FNV-1a, linear
/// probing, at most half full) maps them to ids.
struct ArenaInterner<Unit: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable {
    private(set) var arena: [Unit] = []
    /// Key `id` is `arena[starts[id]..<starts[id + 1]]`.
    private(set) var starts: [UInt32] = [0]
    private var slots: [UInt32]  // id + 1, 0 when empty
    private var mask: Int

    /// A table for about `expected` keys, of at least `minimumSlots` (a power of two).
    init(expected: Int, minimumSlots: Int) {
        var size = minimumSlots
        while size < expected * 2 { size <<= 1 }
        slots = [UInt32](repeating: 0, count: size)
        mask = size - 1
    }

    var count: Int { starts.count - 1 }

    func units(of id: Int) -> ArraySlice<Unit> {
        arena[Int(starts[id])..<Int(starts[id + 1])]
    }

    /// The id of `key`, and whether this added it.
    mutating func add(_ key: some Collection<Unit>) -> (id: UInt32, isNew: Bool) {
        if count * 2 >= slots.count { grow() }
        var slot = Self.hash(key) & mask
        while true {
            let stored = slots[slot]
            if stored == 0 {
                let id = UInt32(count)
                arena.append(contentsOf: key)
                starts.append(UInt32(arena.count))
                slots[slot] = id + 1
                return (id, true)
            }
            let found = units(of: Int(stored - 1))
            if found.count == key.count && found.elementsEqual(key) { return (stored - 1, false) }
            slot = (slot + 1) & mask
        }
    }

    private mutating func grow() {
        let size = slots.count * 2
        slots = [UInt32](repeating: 0, count: size)
        mask = size - 1
        for id in 0..<count {
            var slot = Self.hash(units(of: id)) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(id + 1)
        }
    }

    /// FNV-1a over the units.
    private static func hash(_ units: some Collection<Unit>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for unit in units { hash = (hash ^ UInt64(unit)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 29))
    }
}
