import Base
import Testing

@testable import Search

/// A string column's values front-coded in blocks (`FrontCodedStrings`): every string reads back
/// as appended, a sorted set finds each of its strings and none other, and bytes that do not
/// decode are refused before a read could run past them.
@Suite struct FrontCodedStringsTests {
    /// Sorted, distinct, sharing prefixes of every length (paths-like), some empty and some long.
    private static func strings(count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SplitMix64(seed: seed)
        var set = Set<[UInt8]>()
        let parts = ["usr", "share", "doc", "lib", "x86_64-linux-gnu", "é", "python3", String(repeating: "long", count: 40)]
        while set.count < count {
            let depth = Int.random(in: 0...4, using: &random)
            let path = (0..<depth).map { _ in parts.randomElement(using: &random)! }.joined(separator: "/")
            set.insert(Array((path + (Bool.random(using: &random) ? "" : "\(Int.random(in: 0..<1_000, using: &random))")).utf8))
        }
        return set.sorted { $0.lexicographicallyPrecedes($1) }
    }

    private static func build(_ strings: [[UInt8]]) -> FrontCodedStrings {
        var builder = FrontCodedStrings.Builder()
        for string in strings { builder.append(string) }
        return builder.build()
    }

    @Test(arguments: [0, 1, 15, 16, 17, 1_000]) func everyStringReadsBackAndIsFound(count: Int) {
        let strings = Self.strings(count: count, seed: UInt64(count))
        let coded = Self.build(strings)
        #expect(coded.count == strings.count)
        #expect(coded.isWellFormed)
        for (v, string) in strings.enumerated() {
            #expect(coded.string(v) == string)
            #expect(string.withUnsafeBufferPointer { coded.index(of: $0) } == v)
        }
        let plainBytes = strings.reduce(0) { $0 + $1.count }
        if count == 1_000 { #expect(coded.bytes.count < plainBytes) }
    }

    /// A reader walks the strings in order, across blocks, and skips ahead to a later one; the
    /// builder takes them as arrays, slices and strings' UTF-8 alike.
    @Test(arguments: [0, 1, 16, 17, 1_000]) func aReaderReadsEveryStringInOrder(count: Int) {
        let strings = Self.strings(count: count, seed: UInt64(count) + 7)
        var builder = FrontCodedStrings.Builder()
        for (v, string) in strings.enumerated() {
            switch v % 3 {
            case 0: builder.append(string)
            case 1: builder.append(string[...])
            default: builder.append(String(decoding: string, as: UTF8.self).utf8)
            }
        }
        let coded = builder.build()
        #expect(coded.bytes == Self.build(strings).bytes)
        var reader = FrontCodedStrings.Reader(coded)
        for (v, string) in strings.enumerated() {
            #expect(reader.index == v && reader.current == string)
            reader.advance()
        }
        #expect(reader.index == count && reader.current.isEmpty)
        var skipping = FrontCodedStrings.Reader(coded)
        for v in stride(from: 0, to: count, by: 7) {
            skipping.advance(to: v)
            #expect(skipping.current == strings[v])
        }
    }

    @Test func stringsNotHeldAreNotFound() {
        let strings = Self.strings(count: 300, seed: 7)
        let coded = Self.build(strings)
        let held = Set(strings)
        for probe in ["", "a", "usr/", "usr/share/doc/zzz", "\u{10FFFF}", "lib/python3/999999"].map({ Array($0.utf8) })
        where !held.contains(probe) {
            #expect(probe.withUnsafeBufferPointer { coded.index(of: $0) } == nil)
        }
        for string in strings.prefix(50) {
            let longer = string + [0x7E]
            if !held.contains(longer) { #expect(longer.withUnsafeBufferPointer { coded.index(of: $0) } == nil) }
        }
    }

    @Test func bytesThatDoNotDecodeAreRefused() throws {
        let coded = Self.build(Self.strings(count: 40, seed: 3))
        // Each byte cut off, or a length that runs past the end, or a block start moved.
        #expect(!FrontCodedStrings(bytes: Array(coded.bytes.dropLast()), blockStarts: coded.blockStarts, count: coded.count).isWellFormed)
        var longer = coded.bytes
        longer[0] = 0x7F
        #expect(!FrontCodedStrings(bytes: longer, blockStarts: coded.blockStarts, count: coded.count).isWellFormed)
        var moved = coded.blockStarts
        moved[1] += 1
        #expect(!FrontCodedStrings(bytes: coded.bytes, blockStarts: moved, count: coded.count).isWellFormed)
        #expect(!FrontCodedStrings(bytes: coded.bytes, blockStarts: coded.blockStarts, count: coded.count + 1).isWellFormed)
        // A shared prefix longer than the string before it.
        var shared = coded.bytes
        try #require(shared[0] < 0x80)
        let second = 1 + Int(shared[0])
        shared[second] = 0x7F
        #expect(!FrontCodedStrings(bytes: shared, blockStarts: coded.blockStarts, count: coded.count).isWellFormed)
    }
}
