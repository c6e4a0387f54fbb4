import Testing

@testable import Search

@Suite struct CollectionTextSearchTests {
    private typealias F = CollectionFixtures

    @Test func heavierFieldFirst() {
        let index = F.index(
            F.product("d", title: "Plain", description: "lamp", price: 900),
            F.product("t", title: "Lamp", price: 1),
            F.product("g", title: "Plain", tags: ["lamp"], price: 500),
        )
        // title (first searched field) > tags > description, before rank (price).
        #expect(F.ids(F.search(index, "lamp")) == ["t", "g", "d"])
    }

    @Test func fewerTyposFirst() {
        let index = F.index(
            F.product("1", title: "Barcelone", price: 1000),
            F.product("2", title: "Barcelona", price: 1),
        )
        let result = F.search(index, "barcelona ")
        #expect(F.ids(result) == ["2", "1"])
        #expect(result.hits.map(\.typos) == [0, 1])
    }

    @Test func exactWordBeforePrefix() {
        let index = F.index(
            F.product("long", title: "Yorkshire", price: 1000),
            F.product("exact", title: "York", price: 1),
        )
        #expect(F.ids(F.search(index, "york")) == ["exact", "long"])
        // A finished word is not a prefix.
        #expect(F.ids(F.search(index, "york ")) == ["exact"])
    }

    @Test func exactnessBreaksTiesBeforeRank() {
        let index = F.index(
            F.product("manual", title: "kydisplayswitch 1 gz", price: 900),
            F.product("long", title: "tools for kydisplayswitch", price: 800),
            F.product("binary", title: "kydisplayswitch", price: 1),
            F.product("start", title: "kydisplayswitch gz", price: 2),
        )
        // The field that is the query first, then fields that start with it, the shorter first; then rank.
        #expect(F.ids(F.search(index, "kydisplayswitch")) == ["binary", "start", "manual", "long"])
        // With typos: the same order (each word within its budget).
        #expect(F.ids(F.search(index, "kydisplaysvitch ")) == ["binary", "start", "manual", "long"])
        // Only ties: a word more matched still ranks first.
        #expect(F.ids(F.search(index, "kydisplayswitch gz")).prefix(2) == ["start", "manual"])
        // At the same level, the earlier searched field first: a title that is the query before a
        // tag that is, whatever the rank.
        let fields = F.index(
            F.product("tagged", title: "Lamp shade", tags: ["lamp"], price: 900),
            F.product("titled", title: "Lamp", tags: ["lamp"], price: 1),
        )
        #expect(F.ids(F.search(fields, "lamp")) == ["titled", "tagged"])
        // Paging sees the same order.
        #expect(F.ids(index.search(CollectionQuery(text: "kydisplayswitch", limit: 2, offset: 1))) == ["start", "manual"])
    }

    @Test func rankThenIdBreakTies() {
        let index = F.index(
            F.product("b", title: "Chair"),
            F.product("c", title: "Chair", price: 5),
            F.product("a", title: "Chair"),
            F.product("d", title: "Chair", price: 50),
        )
        // Higher price first, documents without a price last, then by id.
        #expect(F.ids(F.search(index, "chair")) == ["d", "c", "a", "b"])
        #expect(F.ids(index.search(CollectionQuery())) == ["d", "c", "a", "b"])
    }

    @Test func moreWordsFirstAndMissingLaterWordsStillFind() {
        let index = F.index(
            F.product("1", title: "Red Chair", price: 1),
            F.product("2", title: "Chair", price: 100),
            F.product("3", title: "Red Lamp", price: 1000),
        )
        let result = F.search(index, "chair red")
        #expect(F.ids(result) == ["1", "2"])
        #expect(result.hits.map(\.wordsMatched) == [2, 1])
        #expect(result.total == 2)
        // The later word finds nothing: the first word's matches still come back.
        #expect(F.ids(F.search(index, "chair zzzz")) == ["2", "1"])
        // The first word finds nothing: no match (the first word admits documents).
        #expect(F.search(index, "zzzz chair").total == 0)
    }

    @Test func typosFoldingAndPrefixAsOnTheCities() {
        let index = F.index(
            F.product("1", title: "São Paulo Café"),
            F.product("2", title: "Amsterdam"),
        )
        #expect(F.ids(F.search(index, "sao pa")) == ["1"])
        #expect(F.ids(F.search(index, "CAFE")) == ["1"])
        #expect(F.ids(F.search(index, "amsterdma")) == ["2"])
        #expect(F.ids(F.search(index, "msterdam")) == [])  // the first letter must be right
    }

    @Test func highlightsPerSearchedField() throws {
        let index = F.index(
            F.product("1", title: "Café Lamp", tags: ["desk", "lamp shade"], description: "A lampe", brand: "Lamp")
        )
        let hit = try #require(F.search(index, "lamp").hits.first)
        #expect(hit.highlight["title"] == [[5, 9]])
        #expect(hit.highlight["tags"] == [[1, 0, 4]])
        #expect(hit.highlight["description"] == [[2, 6]])  // the prefix "lamp" of "lampe"
        #expect(hit.highlight["brand"] == nil)  // not searched
        #expect(F.search(index, "cafe lam").hits.first?.highlight["title"] == [[0, 4], [5, 8]])
        #expect(index.search(CollectionQuery()).hits.first?.highlight == [:])
    }

    @Test func pagingAndTotal() {
        let index = CollectionIndex(schema: F.products, documents: (0..<30).map { F.product("\($0)", title: "Item \($0)", price: Double($0)) })
        let page = index.search(CollectionQuery(text: "item", limit: 5, offset: 10))
        #expect(page.total == 30)
        #expect(F.ids(page) == ["19", "18", "17", "16", "15"])
        #expect(index.search(CollectionQuery(text: "item", limit: 0)).hits.isEmpty)
    }
}
