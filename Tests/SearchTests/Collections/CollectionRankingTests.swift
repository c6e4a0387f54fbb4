import Testing

@testable import Search

/// Issue 28's ranking rules for collections, one test each (each fails without its rule):
/// typos after the first letter, a short word's typo when nothing holds it, up to 15 words, and
/// the exactness level (a field that is the query, then one that starts with it, then one where
/// its words follow each other in order) before the fields' weights and exact-over-prefix.
@Suite struct CollectionRankingTests {
    private typealias F = CollectionFixtures

    @Test func aTypoMayFallOnTheSecondLetterOfALongWord() {
        let index = F.index(
            F.product("sat", title: "satellites receiver"),
            F.product("mod", title: "modifications elements"),
            F.product("other", title: "stellar receiver"),
        )
        // Words of 9 letters or more take two typos; one of them on the second letter used to
        // need the first two letters as typed.
        #expect(F.ids(F.search(index, "stellites receiver")) == ["sat"])
        #expect(F.ids(F.search(index, "mdoifications elements")) == ["mod"])  // second and third swapped
        #expect(F.search(index, "stellites receiver").hits.first?.typos == 1)
        // The first letter still as typed.
        #expect(F.search(index, "xatellites").total == 0)
    }

    @Test func aShortWordTakesATypoWhenNothingHoldsItAsTyped() {
        let index = F.index(
            F.product("green", title: "out green css", price: 1),
            F.product("blue", title: "out blue css", price: 100),
            F.product("quant", title: "abs quant h", price: 1),
            F.product("abs", title: "abs h", price: 100),
        )
        // `geen` is in no document: one typo finds `green` (a later word, so it ranks).
        #expect(F.ids(F.search(index, "out geen css")) == ["green", "blue"])
        #expect(F.search(index, "out geen css").hits.first?.typos == 1)
        // As the first word it admits documents through its typo too.
        #expect(F.ids(F.search(index, "geen css")) == ["green"])
        // Not the last word, nor a whole one: the same for the word being typed.
        #expect(F.ids(F.search(index, "abs qant h")).first == "quant")
        // A short word that a document holds as typed takes no typo.
        let held = F.index(
            F.product("font", title: "font size"),
            F.product("front", title: "front size", price: 100),
        )
        #expect(F.ids(F.search(held, "font size")) == ["font"])
        #expect(F.search(held, "font ").total == 1)
        // Live queries: the first short word's typo is always allowed (a write can remove the
        // word the index found as typed), so a `green` document can change a `geen` query.
        let matcher = CollectionQueryMatcher(CollectionQuery(text: "geen css"), schema: F.products)
        #expect(matcher.matches(CollectionMatchCandidate(F.product("new", title: "green"), schema: F.products)))
        #expect(!matcher.matches(CollectionMatchCandidate(F.product("new", title: "blue"), schema: F.products)))
    }

    @Test func upToFifteenWordsRank() {
        let index = F.index(
            F.product("map", title: "class ui 1 util 1 auto base coll graph map", price: 100),
            F.product("md5", title: "class ui 1 util 1 auto base coll graph md5", price: 1),
        )
        // Ten words: the tenth tells the two apart (the cities keep 8 words).
        let result = F.search(index, "class ui 1 util 1 auto base coll graph md5")
        #expect(F.ids(result) == ["md5", "map"])
        #expect(result.hits.first?.wordsMatched == 10)
        #expect(CollectionWords.maxWords(SchemaLayout(F.products)) == 15)
    }

    @Test func fifteenWordsOnlyWhenTheirWeightsFit() {
        // 20 searched fields: the last weighs 19, and 15 words of it would not fit 8 bits.
        let fields = (0..<20).map { FieldSchema(name: "f\($0)", type: .string, search: true) }
        let wide = CollectionSchema(idField: "id", fields: fields)
        #expect(CollectionWords.maxWords(SchemaLayout(wide)) == SearchQuery.Limits.maxWords)
    }

    @Test func aFieldThatIsTheQueryBeforeAHeavierFieldHoldingItsWordsAmongOthers() {
        let index = F.index(
            // All the words in the title (the heaviest field), with another among them.
            F.product("feature", title: "librust env logger atty dev", description: "librust env logger atty dev", price: 100),
            // A lighter field whose words are exactly the query.
            F.product("package", title: "changelog", description: "librust env logger dev", price: 1),
        )
        #expect(F.ids(F.search(index, "librust-env-logger-dev")) == ["package", "feature"])
        // Words matched and typos still come first.
        #expect(F.ids(F.search(index, "librust env logger atty")) == ["feature", "package"])
    }

    @Test func aFieldStartingWithTheQueryBeforeAWholeWordElsewhere() {
        let index = F.index(
            F.product("inside", title: "libxslt pipes c", price: 100),
            F.product("start", title: "pipes conf", price: 1),
            F.product("reversed", title: "sel menu png", price: 50),
            F.product("ordered", title: "menu selected png", price: 2),
        )
        // `c` is a whole word of `libxslt pipes c`, a prefix of `conf`: the field that starts with
        // the query first, then exact over prefix.
        #expect(F.ids(F.search(index, "pipes c")) == ["start", "inside"])
        #expect(F.ids(F.search(index, "menu sel")) == ["ordered", "reversed"])
        // At the same level, exact over prefix as before.
        let same = F.index(
            F.product("long", title: "lf hpp", price: 100),
            F.product("exact", title: "lf h", price: 1),
        )
        #expect(F.ids(F.search(same, "lf h")) == ["exact", "long"])
    }

    @Test func theQueryAsAPhraseInsideAFieldBeforeItsWordsApart() {
        let index = F.index(
            F.product("apart", title: "autoconf stacktrace ops int address c", price: 100),
            F.product("phrase", title: "lib stacktrace config h", price: 1),
            F.product("reversed", title: "fs posix acl", price: 100),
            F.product("ordered", title: "linux acl posix h", price: 1),
        )
        // Neither field starts with the query: the one where its words follow each other, in
        // order, comes first, though the other has `c` as a whole word.
        #expect(F.ids(F.search(index, "stacktrace c")) == ["phrase", "apart"])
        #expect(F.ids(F.search(index, "acl po")) == ["ordered", "reversed"])
        let words = ParsedQuery(SearchQuery("acl po")).words
        func level(_ field: String) -> ExactnessOrder.Level? {
            ExactnessOrder.level(of: words, in: QueryRules.words(of: field).map { $0[...] })
        }
        #expect(level("acl posix") == .whole)
        #expect(level("acl posix py") == .start)
        #expect(level("linux acl posix h") == .phrase)
        #expect(level("fs posix acl") == nil)
    }
}
