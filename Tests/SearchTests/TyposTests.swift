import Testing

@testable import Search

@Suite struct TyposTests {
    private func distance(_ a: String, _ b: String, limit: Int = 2) -> Int? {
        Typos.distance(Array(a.utf16), ArraySlice(b.utf16), limit: limit)
    }

    @Test func optimalStringAlignment() {
        #expect(distance("paris", "paris") == 0)
        #expect(distance("pairs", "paris") == 1)  // transposition counts one
        #expect(distance("amsterdma", "amsterdam") == 1)
        #expect(distance("londn", "london") == 1)
        #expect(distance("lonxdon", "london") == 1)
        #expect(distance("berlim", "berlin") == 1)
        #expect(distance("bemlni", "berlin") == 2)
        #expect(distance("abc", "xyz") == nil)
    }

    @Test func typosInTheFirstTwoLetters() {
        // One typo may fall anywhere: a wrong, extra or missing first letter, the first two swapped.
        #expect(distance("xondon", "london", limit: 1) == 1)
        #expect(distance("olndon", "london", limit: 1) == 1)
        #expect(distance("ondon", "london", limit: 1) == 1)
        #expect(distance("hlondon", "london", limit: 1) == 1)
        #expect(distance("brelin", "berlin", limit: 1) == 1)
        // Two typos anywhere, both in the first letters too.
        #expect(distance("xhiladelpia", "philadelphia") == 2)  // first letter and a later one
        #expect(distance("pxiladelpia", "philadelphia") == 2)  // second letter and a later one
        #expect(distance("hpiladelphia", "philadelphia") == 1)
        #expect(distance("xyiladelphia", "philadelphia") == 2)  // both of the first two letters
        #expect(distance("iladelphia", "philadelphia") == 2)  // both first letters missing
        #expect(distance("xholadelphia", "philadelphia") == 2)  // the first letter and the third
        #expect(distance("phoiladelphia", "philadelphia") == 1)
        #expect(distance("xyzladelphia", "philadelphia") == nil)  // three
        // One typo allowed: one, not two.
        #expect(distance("xyiladel", "philadel", limit: 1) == nil)
        // The prefix form follows the same rule.
        #expect(Typos.prefixDistance(word: Array("xondo".utf16), token: ArraySlice("london".utf16), limit: 1)?.typos == 1)
        #expect(Typos.prefixDistance(word: Array("xyiladel".utf16), token: ArraySlice("philadelphia".utf16), limit: 2)?.typos == 2)
    }

    @Test func budgetGrowsWithLength() {
        #expect(QueryWord.typoBudget(letters: 4) == 0)
        #expect(QueryWord.typoBudget(letters: 5) == 1)
        #expect(QueryWord.typoBudget(letters: 8) == 1)
        #expect(QueryWord.typoBudget(letters: 9) == 2)
    }

    @Test func searchForgivesTyposByLength() {
        // 4 letters: no typo allowed.
        #expect(Cities.top("rmoe")?.document.name != "Rome")
        #expect(Cities.top("roem ")?.document.name != "Rome")
        // 5 to 8 letters: one, the first letter included.
        #expect(Cities.top("berlni")?.document.name == "Berlin")
        #expect(Cities.top("brelin")?.document.name == "Berlin")
        #expect(Cities.top("verlin")?.document.name == "Berlin")
        #expect(Cities.top("ebrlin")?.document.name == "Berlin")
        #expect(Cities.top("amsterdma")?.document.name == "Amsterdam")
        #expect(Cities.top("madird")?.document.name == "Madrid")
        #expect(Cities.top("madirdd ") == nil || Cities.top("madirdd ")?.document.name != "Madrid")
        // 9 and more: two.
        #expect(Cities.top("philadelpia")?.document.name == "Philadelphia")
        #expect(Cities.top("barcelonna")?.document.name == "Barcelona")
        #expect(Cities.top("barzelonna")?.document.name == "Barcelona")
        #expect(Cities.top("vbarcelonna")?.document.name == "Barcelona")  // an extra first letter and one more
        #expect(Cities.top("pihladelphai")?.document.name == "Philadelphia")  // swapped 2nd and 3rd, swapped last two
    }

    /// Two typos of which both touch the first letters are found (by walks that try every first
    /// letter) when nothing matches with fewer typos.
    @Test func twoTyposInTheFirstLettersWhenNothingMatchesWithFewer() {
        let index = SearchIndex(documents: [
            Document(id: "1", name: "Volgograd", rank: 1_000_000),
            Document(id: "2", name: "Casablanca", rank: 3_000_000),
            Document(id: "3", name: "Vologda", rank: 300_000),
        ])
        func ids(_ text: String) -> [String] { index.search(SearchQuery(text)).hits.map(\.document.id) }
        #expect(ids("dplgograd") == ["1"])  // both first letters wrong
        #expect(ids("xfasablanca") == ["2"])  // an extra first letter, the second wrong
        #expect(ids("xfasablanca ") == ["2"])  // a finished word
        #expect(ids("olgogrd") == [])  // 7 letters: one typo only
        #expect(index.search(SearchQuery("dplgograd")).hits.first?.typos == 2)
    }

    /// With several words, a word's early typos are looked for when it is found without typos in
    /// fewer documents than the page holds.
    @Test func earlyTyposOfOneOfSeveralWords() {
        #expect(Cities.top("asnto domingo")?.document.name == "Santo Domingo")
        #expect(Cities.top("rio de xaneiro")?.document.name == "Rio de Janeiro")
    }

    @Test func aTypoOfAFamousCityOutranksAnObscureExactName() {
        #expect(Cities.top("paris")?.typos == 0)
        #expect(Cities.top("lindon ")?.document.name == "London")
        #expect(Cities.top("nakara")?.document.name == "Ankara")
    }
}

/// The index's typo walk (a bit-parallel automaton over the term dictionary) and its counting
/// shortcut against the plain distance table applied to every token of every city.
@Suite struct TypoWalkTests {
    /// The normalized tokens of every city's names, once.
    static let tokens: [[ArraySlice<UInt16>]] = Cities.documents.map { document in
        var buffer = TokenBuffer()
        var tokens: [ArraySlice<UInt16>] = []
        for name in [document.name] + document.alternateNames {
            Normalizer.scan(name, into: &buffer)
            tokens += buffer.spans.map { ArraySlice(Array(buffer.units(of: $0))) }
        }
        return tokens
    }

    @Test(arguments: [
        "berlni", "madri", "saint", "philadelpia", "barcelonna ", "amsterdma", "londn ", "sant", "marseile",
        "xondon", "ondon ", "olndon", "brelin", "hpiladelphia", "pxiladelpia ", "xhiladelpia", "arcelona ", "sbarcelona",
        "dplgograd", "xfasablanca", "hjihuahua ", "iladelphia", "xyiladelphia", "rhgaziabad", "wtsrakhan",
    ])
    func totalEqualsTheDocumentsWithinTheTypoBudget(text: String) {
        let word = ParsedQuery(SearchQuery(text)).words[0]
        let lead = Typos.exactLead(budget: word.typoBudget)
        // Per document, the fewest typos of its tokens found by the walk under the first `lead`
        // letters as typed, and by the early-typo walks (nil: none).
        let typos = Self.tokens.map { tokens -> (clean: Int?, early: Int?) in
            var best: (clean: Int?, early: Int?) = (nil, nil)
            for token in tokens {
                guard let typos = word.match(token)?.typos else { continue }
                if token.prefix(lead).elementsEqual(word.units.prefix(lead)) {
                    best.clean = min(best.clean ?? typos, typos)
                } else {
                    best.early = min(best.early ?? typos, typos)
                }
            }
            return best
        }
        for (limit, offset) in [(3, 0), (100, 1_000)] {  // the second pages past the typo-free matches
            // One early typo counts when the documents without typos do not fill the page (or when
            // one with a typo may still outrank the page's last: then the total is between), two
            // anywhere only when nothing matches with fewer.
            let total = Cities.index.search(SearchQuery(text, limit: limit, offset: offset)).total
            let clean = typos.count { $0.clean != nil }
            if typos.count(where: { $0.clean == 0 }) >= limit + offset {
                #expect(total >= clean && total <= typos.count { $0.clean != nil || $0.early == 1 }, "limit \(limit) offset \(offset)")
                continue
            }
            let earlyLevel = typos.contains(where: { ($0.clean ?? 9) <= 1 || $0.early == 1 }) ? 1 : 2
            let expected = typos.count { $0.clean != nil || ($0.early ?? 9) <= earlyLevel }
            #expect(total == expected, "limit \(limit) offset \(offset)")
        }
    }

    /// The early typos' fallback changes only `total`, never a page: every page is the start of a
    /// longer one, whether the shorter page was full without typos (early typos not looked for) or not.
    @Test(arguments: ["saint", "sant", "berlin", "londo", "ondon", "madri", "brelin", "barcelona", "philadelphia ", "xondon"])
    func earlyTyposAreAFallbackOnlyForTotal(text: String) {
        let long = Cities.index.search(SearchQuery(text, limit: 20)).hits.map(\.document.id)
        for limit in 1...6 {
            #expect(Cities.index.search(SearchQuery(text, limit: limit)).hits.map(\.document.id) == Array(long.prefix(limit)), "limit \(limit)")
        }
    }
}
