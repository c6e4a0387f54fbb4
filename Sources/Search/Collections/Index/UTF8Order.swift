import Foundation

/// UTF-8 byte order of strings by `memcmp` over their contiguous storage: the order of ids and
/// of folded values. (`utf8.lexicographicallyPrecedes` walks a generic iterator byte by byte:
/// sorting a million values with it took most of a column's build.)
enum UTF8Order {
    /// Negative when `a` comes first, positive when `b` does, 0 when equal.
    @inline(__always) static func compare(_ a: String, _ b: String) -> Int {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in compare(x, y) } }
    }

    @inline(__always) static func compare(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(x.count, y.count)
        if common > 0, let p = x.baseAddress, let q = y.baseAddress {
            let order = memcmp(p, q, common)
            if order != 0 { return Int(order) }
        }
        return x.count - y.count
    }

    @inline(__always) static func precedes(_ a: String, _ b: String) -> Bool { compare(a, b) < 0 }
}
