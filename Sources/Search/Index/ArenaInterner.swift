/// Dense ids for keys, runs of `Unit`s (a term's UTF-16 units, ``TermInterner``; a column value's
/// folded UTF-8 bytes, `StringColumn`'s), in order of first appearance, without a heap object or
/// a `String` per key: the keys live in one arena and an open-addressing table (a multiplicative
/// hash of the key's bytes, linear probing, at most half full) maps them to ids.
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
        if let added = key.withContiguousStorageIfAvailable({ add(contiguous: $0) }) { return added }
        return Array(key).withUnsafeBufferPointer { add(contiguous: $0) }
    }

    /// ``add(_:)`` of contiguous units: a probed key is compared to the arena's bytes in place
    /// (the generic `elementsEqual` of a slice cost more than the probe, issue 25).
    private mutating func add(contiguous key: UnsafeBufferPointer<Unit>) -> (id: UInt32, isNew: Bool) {
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
            let start = Int(starts[Int(stored - 1)]), end = Int(starts[Int(stored)])
            if end - start == key.count, Self.equal(arena, from: start, key) { return (stored - 1, false) }
            slot = (slot + 1) & mask
        }
    }

    /// Whether `arena[start..<start + key.count]` holds `key`.
    private static func equal(_ arena: [Unit], from start: Int, _ key: UnsafeBufferPointer<Unit>) -> Bool {
        arena.withUnsafeBufferPointer { arena in
            var i = 0
            while i < key.count {
                if arena[start + i] != key[i] { return false }
                i += 1
            }
            return true
        }
    }

    private mutating func grow() {
        let size = slots.count * 2
        slots = [UInt32](repeating: 0, count: size)
        mask = size - 1
        arena.withUnsafeBufferPointer { arena in
            for id in 0..<count {
                var slot = Self.hash(UnsafeBufferPointer(rebasing: arena[Int(starts[id])..<Int(starts[id + 1])])) & mask
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = UInt32(id + 1)
            }
        }
    }

    /// The key's bytes eight at a time, multiplied and folded (a byte at a time cost four
    /// instructions a byte: a column of paths hashes every path). Ids do not depend on it, only
    /// where a key is probed.
    private static func hash(_ key: UnsafeBufferPointer<Unit>) -> Int {
        let bytes = UnsafeRawBufferPointer(key)
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
            hash ^= hash >> 29
            offset += 8
        }
        if offset < bytes.count {
            // The last eight bytes (overlapping the word before) when there are eight, else 4 + 2 + 1 bytes' loads.
            var tail: UInt64 = 0
            if bytes.count >= 8 {
                tail = bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
            } else {
                var at = 0
                if bytes.count & 4 != 0 {
                    tail = UInt64(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
                    at = 4
                }
                if bytes.count & 2 != 0 {
                    tail |= UInt64(bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self)) << UInt64(8 * at)
                    at += 2
                }
                if bytes.count & 1 != 0 { tail |= UInt64(bytes[at]) << UInt64(8 * at) }
            }
            hash = (hash ^ tail) &* multiplier
        }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }
}
