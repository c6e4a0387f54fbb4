/// Where each body of a segment ends in its arena, kept in memory for bodies read from a file:
/// 4 bytes a document while the arena is under 4 GiB (every segment of real documents so far),
/// 8 beyond.
enum BodyEnds: Sendable {
    case narrow([UInt32])
    case wide([Int])

    /// `ends`, ascending, the last one `total`.
    init(_ ends: some Collection<Int>, total: Int) {
        self = total <= Int(UInt32.max) ? .narrow(ends.map { UInt32($0) }) : .wide(Array(ends))
    }

    var count: Int {
        switch self {
        case .narrow(let ends): return ends.count
        case .wide(let ends): return ends.count
        }
    }

    @inline(__always) subscript(d: Int) -> Int {
        switch self {
        case .narrow(let ends): return Int(ends[d])
        case .wide(let ends): return ends[d]
        }
    }

    /// Where body `d` starts.
    @inline(__always) func start(_ d: Int) -> Int { d == 0 ? 0 : self[d - 1] }

    /// Every end, as `Int`.
    var all: [Int] {
        switch self {
        case .narrow(let ends): return ends.map { Int($0) }
        case .wide(let ends): return ends
        }
    }
}
