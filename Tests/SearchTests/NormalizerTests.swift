import Base
import Testing

@testable import Search

@Suite struct NormalizerTests {
    @Test(arguments: [
        ("São Paulo", "sao paulo"),
        ("Zürich", "zurich"),
        ("ZÜRICH", "zurich"),
        ("Straße", "strasse"),
        ("Ærøskøbing", "aeroskobing"),
        ("Łódź", "lodz"),
        ("Đà Nẵng", "da nang"),
        ("Þórshöfn", "thorshofn"),
        ("Œuvre", "oeuvre"),
        ("Isparta ıspir", "isparta ispir"),
        ("İstanbul", "istanbul"),
        ("N'Djamena", "ndjamena"),
        ("Saint-Étienne", "saint etienne"),
        ("St. Louis", "st louis"),
        ("ﬁnland", "finland"),
        ("ＴＯＫＹＯ", "tokyo"),
        ("Москва", "москва"),
        ("Ёлки йошкар", "елки иошкар"),
        ("Αθήνα", "αθηνα"),
        ("ΟΔΥΣΣΕΥΣ", "οδυσσευσ"),
        ("القاهرة", "القاهره"),
        ("إسطنبول", "اسطنبول"),
        ("מִצְרַיִם", "מצרימ"),
        ("東京都", "東京都"),
        ("ｶﾀｶﾅ", "カタカナ"),
        ("서울특별시", "서울특별시"),
        ("Tokyo東京", "tokyo 東京"),
        ("  --  ", ""),
    ])
    func normalizes(input: String, expected: String) {
        #expect(Normalizer.normalize(input) == expected)
    }

    @Test func tokenizesOnSeparators() {
        #expect(Normalizer.tokenize("Rio de Janeiro") == ["rio", "de", "janeiro"])
        #expect(Normalizer.tokenize("Frankfurt am Main/Hessen") == ["frankfurt", "am", "main", "hessen"])
        #expect(Normalizer.tokenize("") == [])
    }

    /// ASCII text takes a path of its own (issue 25: read through pointers): its units, spans and
    /// sources are those the general path gives the same text, which a trailing no-break space
    /// (a separator, not ASCII) sends there. Every ASCII byte, tokens longer than the longest kept.
    @Test func asciiTextScansAsTheGeneralPathScansIt() {
        var random = SplitMix64(seed: 25)
        let alphabet: [UInt8] = Array(0..<0x80) + Array("aaaaeeeiioouuAEZ09'- ./_".utf8)
        var texts = ["", "a", "N'Djamena", "usr/share/doc/libfoo-dev/changelog.Debian.gz", String(repeating: "x", count: 60) + " y"]
        for _ in 0..<400 {
            let length = Int.random(in: 0..<90, using: &random)
            texts.append(String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &random)! }, as: UTF8.self))
        }
        for text in texts {
            for recordSources in [false, true] {
                var ascii = TokenBuffer(), general = TokenBuffer()
                Normalizer.scan(text, into: &ascii, recordSources: recordSources)
                Normalizer.scan(text + "\u{00A0}", into: &general, recordSources: recordSources)
                #expect(ascii.units == general.units, "\(Array(text.utf8))")
                #expect(ascii.sources == general.sources)
                #expect(ascii.spans.map { [$0.unitStart, $0.unitEnd, $0.scalarStart, $0.scalarEnd] }
                    == general.spans.map { [$0.unitStart, $0.unitEnd, $0.scalarStart, $0.scalarEnd] })
                #expect(ascii.spans.allSatisfy { !$0.isCJK })
            }
        }
    }

    @Test func spansCountUnicodeScalars() {
        var buffer = TokenBuffer()
        Normalizer.scan("Đà Nẵng", into: &buffer, recordSources: true)
        #expect(buffer.spans.map { [Int($0.scalarStart), Int($0.scalarEnd)] } == [[0, 2], [3, 7]])
    }
}
