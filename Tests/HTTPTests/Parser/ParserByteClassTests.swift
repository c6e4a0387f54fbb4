@testable import HTTP
import Testing

/// The fast byte checks agree with their plain definitions for every byte.
@Suite("RequestParser byte classes")
struct ParserByteClassTests {
    @Test func tokenMaskMatchesTheGrammar() {
        for byte in UInt8.min...UInt8.max {
            #expect(RequestParser.ASCII.isTokenChar(byte) == RequestParser.ASCII.isTokenCharBySwitch(byte), "byte \(byte)")
        }
    }

    /// Every byte value at every position of an 8-byte word (and in the tail) is accepted or
    /// rejected as field-value grammar says, and obs-text is reported as non-ASCII.
    @Test func wordAtATimeValueCheckMatchesTheGrammar() {
        for byte in UInt8.min...UInt8.max {
            for position in 0..<11 {
                var line = Array("A: ".utf8) + Array(repeating: UInt8(ascii: "v"), count: 11)
                line[3 + position] = byte
                line.append(UInt8(ascii: "z"))  // so that trailing whitespace is not trimmed away
                let expectedValid = byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
                let result = line.withUnsafeBytes { raw in
                    Result { () throws(RequestParseError) in try RequestParser.FieldLine(raw).valueIsASCII }
                }
                switch result {
                case .success(let isASCII):
                    #expect(expectedValid, "byte \(byte) at \(position) accepted")
                    #expect(isASCII == (byte < 0x80), "byte \(byte) at \(position)")
                case .failure:
                    #expect(!expectedValid, "byte \(byte) at \(position) rejected")
                }
            }
        }
    }
}
