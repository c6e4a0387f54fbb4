import Base
import Testing

@testable import Search

/// `StringColumn.foldsToItself` checks eight bytes a step: it must answer as the byte-by-byte rule
/// (ASCII, no capital) does, wherever a capital or a non-ASCII byte falls.
@Suite struct StringColumnFoldTests {
    private static func byByte(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { $0 < 0x80 && !(0x41...0x5A).contains($0) }
    }

    private static func folds(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { StringColumn.foldsToItself($0) }
    }

    @Test func everyByteAtEveryOffsetOfEveryLength() {
        for length in 1..<20 {
            for at in 0..<length {
                for byte in UInt8.min...UInt8.max {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[at] = byte
                    #expect(Self.folds(bytes) == Self.byByte(bytes), "byte \(byte) at \(at) of \(length)")
                }
            }
        }
        #expect(Self.folds([]))
    }

    @Test func randomTexts() {
        var random = SplitMix64(seed: 26)
        let alphabet: [UInt8] = Array(0x20..<0x80) + [0x40, 0x41, 0x5A, 0x5B, 0x60, 0x61, 0x7A, 0x7B, 0x80, 0xC3, 0xA9, 0xFF]
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<40, using: &random)
            let bytes = (0..<length).map { _ in
                // Mostly lower-case letters, as paths are, so that whole words pass.
                Bool.random(using: &random) ? UInt8.random(in: 0x61...0x7A, using: &random) : alphabet.randomElement(using: &random)!
            }
            #expect(Self.folds(bytes) == Self.byByte(bytes), "\(bytes)")
        }
    }
}
