import HTTPTypes
import Testing

@testable import HTTP

/// Query strings as `application/x-www-form-urlencoded` reads them, byte by byte.
@Suite struct QueryItemsTests {
    func pairs(_ query: String) -> [[String]] {
        QueryItems(query).items.map { [$0.name, $0.value] }
    }

    @Test func pairsSplitOnAmpersandAndFirstEquals() {
        #expect(pairs("") == [])
        #expect(pairs("q=sao") == [["q", "sao"]])
        #expect(pairs("q=a&limit=5") == [["q", "a"], ["limit", "5"]])
        #expect(pairs("&&q=a&&") == [["q", "a"]])
        #expect(pairs("flag") == [["flag", ""]])
        #expect(pairs("q=") == [["q", ""]])
        #expect(pairs("=v") == [["", "v"]])
        #expect(pairs("q=a=b") == [["q", "a=b"]])
    }

    @Test func escapesAndPlusAreDecoded() {
        #expect(pairs("q=s%C3%A3o+pa") == [["q", "são pa"]])
        #expect(pairs("q=%2B%26%3D") == [["q", "+&="]])
        #expect(pairs("q%20x=1") == [["q x", "1"]])
        #expect(pairs("q=%e2%82%ac") == [["q", "€"]])
    }

    @Test func malformedEscapesStayAndInvalidUTF8IsReplaced() {
        #expect(pairs("q=%zz") == [["q", "%zz"]])
        #expect(pairs("q=%4") == [["q", "%4"]])
        #expect(pairs("q=%") == [["q", "%"]])
        #expect(pairs("q=100%25") == [["q", "100%"]])
        #expect(pairs("q=%FF+a") == [["q", "\u{FFFD} a"]])
        #expect(pairs("q=%C3") == [["q", "\u{FFFD}"]])
    }

    @Test func lookupsByName() {
        let query = QueryItems("a=1&b=2&a=3")
        #expect(query["a"] == "1")
        #expect(query["c"] == nil)
        #expect(query.values(named: "a") == ["1", "3"])
    }

    @Test func pathSegmentsKeepPlusAndDecodeEscapes() {
        #expect(PercentDecoding.decode("a+b%2Fc", plusAsSpace: false) == "a+b/c")
        #expect(PercentDecoding.decode(Substring("x%41y"), plusAsSpace: false) == "xAy")
    }
}
