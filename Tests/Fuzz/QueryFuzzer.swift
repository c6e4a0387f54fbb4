// libFuzzer entry point for the query side of Search, built by `scripts/fuzz query` (not by SwiftPM).
//
// An input is UTF-8 text (invalid bytes repaired) split at NUL into the parameters of
// `GET /search`: q, limit, offset, country (comma-separated), min_rank — read as
// `SearchParameters` reads them. Each input goes through the normalizer, `SearchQuery`
// validation, `normalizedKey` and `ParsedQuery` (valid or not: the engine clamps), and a valid
// query is run on a small index of mixed scripts. The fuzzer stops with a crash when:
// a token is empty or longer than `Normalizer.maxTokenUnits`; token spans run backwards or past
// the text; the index disagrees with the brute-force rule `SearchQuery.matches` (a hit that does
// not match, or fewer hits than matching documents allow); a highlight range lies outside the
// name; or a document named by the query text, just written, is not found by that text.

import Foundation
@testable import Search

@_cdecl("LLVMFuzzerTestOneInput")
public func queryFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let fields = input.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
    let text = fields[0]
    checkTokens(of: text)

    var query = SearchQuery(text)
    if fields.count > 1, !fields[1].isEmpty { guard let limit = Int(fields[1]) else { return 0 }; query.limit = limit }
    if fields.count > 2, !fields[2].isEmpty { guard let offset = Int(fields[2]) else { return 0 }; query.offset = offset }
    if fields.count > 3 { query.countries = fields[3].split(separator: ",").map { $0.uppercased() } }
    if fields.count > 4, !fields[4].isEmpty {
        guard let rank = Double(fields[4]), rank >= 0 else { return 0 }
        query.minRank = rank
    }
    _ = query.normalizedKey
    _ = ParsedQuery(query)
    do {
        try query.validate()
    } catch {
        _ = error.description
        return 0
    }
    checkSearch(query)
    checkWriteThenFind(text)
    return 0
}

func checkTokens(of text: String) {
    var buffer = TokenBuffer()
    Normalizer.scan(text, into: &buffer, recordSources: true)
    let scalars = text.unicodeScalars.count
    var previousEnd: Int32 = 0
    for span in buffer.spans {
        let count = span.unitCount
        if count == 0 { fatalError("empty token in \(text.debugDescription)") }
        // A supplementary scalar is two units, so the cut may leave one more.
        if count > Normalizer.maxTokenUnits + 1 { fatalError("token of \(count) units in \(text.debugDescription)") }
        if span.scalarStart < previousEnd || span.scalarEnd <= span.scalarStart || Int(span.scalarEnd) > scalars {
            fatalError("bad token span \(span) in \(text.debugDescription)")
        }
        previousEnd = span.scalarEnd
    }
    if buffer.sources.count != buffer.units.count { fatalError("sources and units differ in \(text.debugDescription)") }
    for token in Normalizer.tokenize(text) where token.isEmpty { fatalError("empty token from tokenize") }
}

func checkSearch(_ query: SearchQuery) {
    let result = fuzzIndex.search(query)
    let parsed = ParsedQuery(query)  // once: SearchQuery.matches parses the query on each call
    let matching = fuzzIndex.allDocuments().filter { parsed.matches($0) }
    let ids = Set(matching.map(\.id))
    for hit in result.hits {
        if !ids.contains(hit.document.id) {
            fatalError("hit \(hit.document.id) does not match \(query)")
        }
        let length = hit.document.name.unicodeScalars.count
        for range in hit.highlight where range.count != 2 || range[0] < 0 || range[0] >= range[1] || range[1] > length {
            fatalError("highlight \(hit.highlight) outside \(hit.document.name.debugDescription) for \(query)")
        }
    }
    let expected = parsed.words.isEmpty ? 0 : max(0, min(parsed.limit, matching.count - parsed.offset))
    if result.hits.count != expected {
        fatalError("\(result.hits.count) hits, \(matching.count) documents match (limit \(parsed.limit), offset \(parsed.offset)) for \(query)")
    }
}

/// A document named `text` can be found by `text` once written, and is gone once deleted.
func checkWriteThenFind(_ text: String) {
    let document = Document(id: "fuzz-written", name: text, rank: 1)
    guard (try? document.validate()) != nil else { return }
    fuzzIndex.upsert(document)
    defer { _ = fuzzIndex.delete(id: document.id) }
    let result = fuzzIndex.search(SearchQuery(text, limit: SearchQuery.Limits.maxLimit))
    if !result.hits.contains(where: { $0.document.id == document.id }) {
        fatalError("a document named \(text.debugDescription) is not found by its name: \(result.hits.map(\.document.name))")
    }
}

/// A few dozen names in several scripts, with accents, apostrophes, digits and long words.
let fuzzIndex: SearchIndex = {
    let names: [(String, [String], String)] = [
        ("São Paulo", ["Sao Paulo", "サンパウロ"], "BR"), ("Paris", ["Paname", "Париж"], "FR"),
        ("Paris", [], "US"), ("Amsterdam", ["Ámsterdam"], "NL"), ("Москва", ["Moscow", "Moskau"], "RU"),
        ("北京", ["Beijing", "Pékin"], "CN"), ("東京", ["Tokyo", "とうきょう"], "JP"), ("서울", ["Seoul"], "KR"),
        ("N'Djamena", ["Ndjamena"], "TD"), ("Zürich", ["Zurich", "Zuerich"], "CH"), ("Kraków", ["Krakau"], "PL"),
        ("Łódź", ["Lodz"], "PL"), ("القاهرة", ["Cairo"], "EG"), ("תל אביב", ["Tel Aviv"], "IL"),
        ("Αθήνα", ["Athens"], "GR"), ("Reykjavík", [], "IS"), ("Llanfairpwllgwyngyllgogerychwyndrobwllllantysiliogogogoch", [], "GB"),
        ("Springfield", [], "US"), ("Spring Hill", [], "US"), ("Saint-Étienne", ["St Etienne"], "FR"),
        ("Bad Ischl", [], "AT"), ("Ho Chi Minh City", ["Sài Gòn"], "VN"), ("København", ["Copenhagen"], "DK"),
        ("İstanbul", ["Istanbul"], "TR"), ("Straße 1", ["Strasse"], "DE"), ("Æbeltoft", [], "DK"),
        ("Þingvellir", [], "IS"), ("𝔘𝔫𝔦𝔠𝔬𝔡𝔢 Town", ["😀 City"], "US"), ("10 de Octubre", [], "CU"), ("A", ["B C D E F G H I J"], "ZZ"),
    ]
    let documents = names.enumerated().map { index, entry in
        Document(
            id: "\(index + 1)", name: entry.0, alternateNames: entry.1, rank: Double((index * 7919) % 1000),
            attributes: ["countryCode": .string(entry.2)])
    }
    return SearchIndex(documents: documents)
}()
