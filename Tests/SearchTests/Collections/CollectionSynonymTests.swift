import Testing

@testable import Search

/// Synonyms and stop words at query time (`QueryRules`), each behaviour on its own.
@Suite struct CollectionSynonymTests {
    private typealias F = CollectionFixtures

    private static let index = CollectionIndex(schema: F.products, documents: [
        F.product("nyc", title: "NYC Deli", price: 10),
        F.product("newyork", title: "New York Bagels", price: 20),
        F.product("york", title: "York Minster tour", price: 30),
        F.product("sneaker", title: "Running sneakers", price: 40),
        F.product("trainer", title: "Running trainers", price: 50),
        F.product("wood", title: "The House of Wood", price: 60),
        F.product("house", title: "Tiny house", price: 5),
        F.product("the", title: "The The", tags: ["band"], price: 1),
    ])

    private static let synonyms = SynonymSettings(
        groups: [["nyc", "new york"], ["sofa", "couch", "settee"]],
        oneWay: [.init(source: "sneakers", targets: ["trainers"])])
    private static let rules = QueryRules(synonyms: synonyms, stopWords: StopWordSettings(words: ["the", "of"]))

    private func ids(_ text: String, rules: QueryRules = rules) -> [String] {
        F.ids(Self.index.search(CollectionQuery(text: text), rules: rules))
    }

    @Test func withoutRulesNothingChanges() {
        #expect(ids("nyc ", rules: .none) == ["nyc"])
        #expect(ids("sneakers ", rules: .none) == ["sneaker"])
    }

    @Test func mutualGroupFindsEachOther() {
        // A one-word member finds the phrase, and the phrase the one word; the typed word first.
        #expect(ids("nyc ") == ["nyc", "newyork"])
        #expect(ids("new york ") == ["newyork", "nyc"])
        // The phrase needs all its words: "york" alone is not "new york".
        #expect(!ids("nyc ").contains("york"))
    }

    @Test func oneWayFindsTargetsNotTheReverse() {
        #expect(ids("sneakers ") == ["sneaker", "trainer"])
        #expect(ids("trainers ") == ["trainer"])
    }

    @Test func synonymHitRanksAfterEquallyGoodTypedHit() {
        // The trainers cost more (rank first otherwise): the typed word still comes first.
        let result = Self.index.search(CollectionQuery(text: "sneakers "), rules: Self.rules)
        #expect(F.ids(result) == ["sneaker", "trainer"])
        #expect(result.hits.map(\.wordsMatched) == [1, 1])
        #expect(result.hits.map(\.typos) == [0, 0])
    }

    @Test func synonymsMatchExactlyTyposAndPrefixesOnlyForTypedWords() {
        // "sneakrs" (one typo) finds the sneakers through the typo rule, but the synonym needs
        // the word as written: no trainers.
        #expect(ids("sneakrs ") == ["sneaker"])
        // A prefix of a synonym's source does not apply it: "ny" is not "nyc".
        #expect(ids("ny") == ["nyc"])
        // The last word typed whole applies it though still a prefix for the typed matches.
        #expect(ids("nyc") == ["nyc", "newyork"])
        // A synonym's target is matched exactly, never as a prefix: "settee" does not find "settees".
        let furniture = CollectionIndex(schema: F.products, documents: [
            F.product("a", title: "Settees galore", price: 1), F.product("b", title: "Blue couch", price: 1),
        ])
        #expect(F.ids(furniture.search(CollectionQuery(text: "sofa "), rules: Self.rules)) == ["b"])
    }

    @Test func stopWordsAreIgnoredUnlessTheQueryIsOnlyStopWords() {
        // "the" and "of" are dropped: "house" decides, and the cheaper "Tiny house" is not pushed
        // below by a missing "the".
        let result = Self.index.search(CollectionQuery(text: "the house of "), rules: Self.rules)
        #expect(Set(F.ids(result)) == ["wood", "house"])
        #expect(result.hits.allSatisfy { $0.wordsMatched == 1 })
        // Without stop words, "the" is the first word and admits only documents holding it.
        #expect(ids("the house of ", rules: .none) == ["wood", "the"])
        // Only stop words: searched as typed (the shorter title first: exactness before rank).
        #expect(ids("the ") == ["the", "wood"])
    }

    @Test func stopWordThenSynonym() {
        #expect(ids("the nyc ") == ["nyc", "newyork"])
    }

    @Test func highlightsShowWhatMatched() throws {
        let result = Self.index.search(CollectionQuery(text: "nyc "), rules: Self.rules)
        let viaPhrase = try #require(result.hits.first { $0.id == "newyork" })
        #expect(viaPhrase.highlight["title"] == [[0, 3], [4, 8]])  // "New", "York"
        let viaTrainers = try #require(Self.index.search(CollectionQuery(text: "sneakers "), rules: Self.rules).hits.last)
        #expect(viaTrainers.highlight["title"] == [[8, 16]])  // "trainers"
    }

    @Test func phraseAcrossFieldsAndWithFilter() {
        let index = CollectionIndex(schema: F.products, documents: [
            F.product("split", title: "New", tags: ["york"], brand: "a", price: 1),
            F.product("other", title: "New York", brand: "b", price: 2),
        ])
        let all = index.search(CollectionQuery(text: "nyc "), rules: Self.rules)
        #expect(Set(F.ids(all)) == ["split", "other"])
        let filtered = index.search(CollectionQuery(text: "nyc ", filter: .compare(field: "brand", .equal, .string("a"))), rules: Self.rules)
        #expect(F.ids(filtered) == ["split"])
        #expect(filtered.total == 1)
    }

    @Test func liveMatcherFollowsTheRules() {
        let schema = F.products
        let trainer = CollectionMatchCandidate(F.product("t", title: "Running trainers"), schema: schema)
        let bagels = CollectionMatchCandidate(F.product("b", title: "New York Bagels"), schema: schema)
        let query = CollectionQuery(text: "sneakers ")
        #expect(!CollectionQueryMatcher(query, schema: schema).matches(trainer))
        #expect(CollectionQueryMatcher(query, schema: schema, rules: Self.rules).matches(trainer))
        #expect(CollectionQueryMatcher(CollectionQuery(text: "nyc"), schema: schema, rules: Self.rules).matches(bagels))
        // A stop word first: the next word decides.
        #expect(CollectionQueryMatcher(CollectionQuery(text: "the bagels"), schema: schema, rules: Self.rules).matches(bagels))
    }
}

@Suite struct TextSettingsDecodingTests {
    private func synonyms(_ json: String, limits: TextSettingsLimits = TextSettingsLimits()) throws(TextSettingsError) -> SynonymSettings {
        try SynonymSettings.decode(json: Array(json.utf8), limits: limits)
    }

    private func refusal(_ json: String, limits: TextSettingsLimits = TextSettingsLimits()) -> TextSettingsError? {
        do {
            _ = try synonyms(json, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func roundTrip() throws {
        let settings = try synonyms(#"{"synonyms": [["nyc", "new york"]], "oneWay": {"sneakers": ["trainers", "running shoes"]}}"#)
        #expect(settings.groups == [["nyc", "new york"]])
        #expect(settings.oneWay == [.init(source: "sneakers", targets: ["trainers", "running shoes"])])
        #expect(try synonyms(String(decoding: settings.encodedJSON(), as: UTF8.self)) == settings)
        #expect(try synonyms("{}").isEmpty)
    }

    @Test func refusalsNameTheField() {
        #expect(refusal("[1]")?.field == "")
        #expect(refusal(#"{"synonym": []}"#)?.field == "synonym")
        #expect(refusal(#"{"synonyms": [["a"]]}"#)?.field == "synonyms[0]")
        #expect(refusal(#"{"synonyms": [["a", 2]]}"#)?.field == "synonyms[0][1]")
        #expect(refusal(#"{"synonyms": [["a", " - "]]}"#)?.field == "synonyms[0][1]")
        #expect(refusal(#"{"oneWay": {"a": []}}"#)?.field == "oneWay.a")
        #expect(refusal(#"{"oneWay": {"a": ["b", 3]}}"#)?.field == "oneWay.a[1]")
        var limits = TextSettingsLimits()
        limits.maxGroups = 1
        #expect(refusal(#"{"synonyms": [["a", "b"], ["c", "d"]]}"#, limits: limits)?.reason.contains("collections.maxSynonymGroups") == true)
        limits.maxWordsPerGroup = 2
        #expect(refusal(#"{"synonyms": [["a", "b", "c"]]}"#, limits: limits)?.reason.contains("collections.maxSynonymWords") == true)
        #expect(refusal(#"{"synonyms": [["a", "one two three four five six seven eight nine"]]}"#)?.field == "synonyms[0][1]")
    }

    @Test func stopWords() throws {
        let settings = try StopWordSettings.decode(json: Array(#"{"stopwords": ["the", "of", "the"]}"#.utf8))
        #expect(settings.words == ["the", "of"])
        #expect(try StopWordSettings.decode(json: settings.encodedJSON()) == settings)
        #expect(throws: TextSettingsError.self) { try StopWordSettings.decode(json: Array(#"{"stopwords": ["new york"]}"#.utf8)) }
        #expect(throws: TextSettingsError.self) { try StopWordSettings.decode(json: Array(#"{}"#.utf8)) }
        var limits = TextSettingsLimits()
        limits.maxStopWords = 1
        #expect(throws: TextSettingsError.self) { try StopWordSettings.decode(json: Array(#"{"stopwords": ["a", "b"]}"#.utf8), limits: limits) }
    }
}
