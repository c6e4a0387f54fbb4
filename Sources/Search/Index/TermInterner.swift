/// Assigns dense ids to token strings while the index is built, without a heap object per token:
/// the strings live in one arena and an open-addressing table maps them to ids.
struct TermInterner {
    private(set) var arena: [UInt16] = []
    private(set) var starts: [UInt32] = [0]
    private var slots: [UInt32]  // id + 1, 0 when empty
    private var mask: Int

    init(expectedTerms: Int) {
        var size = 1024
        while size < expectedTerms * 2 { size <<= 1 }
        slots = [UInt32](repeating: 0, count: size)
        mask = size - 1
    }

    var count: Int { starts.count - 1 }

    func units(of id: Int) -> ArraySlice<UInt16> {
        arena[Int(starts[id])..<Int(starts[id + 1])]
    }

    /// The id of `token`, adding it if new.
    mutating func intern(_ token: ArraySlice<UInt16>) -> UInt32 {
        if count * 2 >= slots.count { grow() }
        var slot = Self.hash(token) & mask
        while true {
            let stored = slots[slot]
            if stored == 0 {
                let id = UInt32(count)
                arena.append(contentsOf: token)
                starts.append(UInt32(arena.count))
                slots[slot] = id + 1
                return id
            }
            if units(of: Int(stored - 1)).elementsEqual(token) { return stored - 1 }
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
    private static func hash(_ units: ArraySlice<UInt16>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for unit in units { hash = (hash ^ UInt64(unit)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 29))
    }
}
