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

    /// The UTF-8 check of request targets agrees with the standard library's validation on
    /// every 1–2 byte sequence and on 200,000 random ones of 1–5 bytes (mostly non-ASCII bytes).
    @Test func targetUTF8CheckMatchesTheStandardLibrary() {
        func agrees(_ bytes: [UInt8]) -> Bool {
            // ASCII bytes become "x" (a valid query character): only the UTF-8 rules are compared.
            let target = Array("/a?q=".utf8) + bytes.map { $0 < 0x80 ? UInt8(ascii: "x") : $0 }
            let validTarget = String(validating: Array(target), as: UTF8.self) != nil
            let accepted = target.withUnsafeBytes { raw in
                (try? RequestParser.RequestTarget.parse(raw, method: .get)) != nil
            }
            return accepted == validTarget
        }
        for first in UInt8.min...UInt8.max {
            #expect(agrees([first]), "\([first])")
            for second in UInt8.min...UInt8.max where first >= 0x80 && !agrees([first, second]) {
                Issue.record("\([first, second])")
            }
        }
        var generator = SystemRandomNumberGenerator()
        var disagreements = 0
        for _ in 0..<200_000 {
            let bytes = (0..<Int.random(in: 1...5, using: &generator)).map { _ in
                UInt8.random(in: 0x7F...0xF5, using: &generator)
            }
            if !agrees(bytes) {
                disagreements += 1
                if disagreements < 5 { Issue.record("\(bytes)") }
            }
        }
        #expect(disagreements == 0)
    }
}
