/// A collection's synonyms and stop words compiled for queries: each entry folded into words as
/// the index folds text, the rules keyed by the first word of their source.
///
/// Synonyms match exactly: a rule applies when the words typed equal its source's (folded, the
/// last one typed whole), and its targets find documents only by their exact words. The typo and
/// prefix rules apply to the words typed, never to a synonym.
public struct QueryRules: Sendable, Hashable {
    /// No synonyms, no stop words.
    public static let none = QueryRules()
    /// Most alternatives one query word takes; further ones are ignored.
    static let maxAlternativesPerWord = 32

    struct Rule: Sendable, Hashable {
        let source: [[UInt16]]
        let targets: [[[UInt16]]]
    }

    let stopWords: Set<[UInt16]>
    /// By the first word of each source phrase.
    let rules: [[UInt16]: [Rule]]

    public init(synonyms: SynonymSettings = SynonymSettings(), stopWords: StopWordSettings = StopWordSettings()) {
        self.stopWords = Set(stopWords.words.compactMap { Self.words(of: $0).first })
        var targets: [[[UInt16]]: [[[UInt16]]]] = [:]
        var order: [[[UInt16]]] = []
        func add(_ source: [[UInt16]], _ target: [[UInt16]]) {
            guard !source.isEmpty, !target.isEmpty, source != target else { return }
            if targets[source] == nil { order.append(source) }
            if !(targets[source]?.contains(target) ?? false) { targets[source, default: []].append(target) }
        }
        for group in synonyms.groups {
            let phrases = group.map(Self.words(of:))
            for source in phrases { for target in phrases { add(source, target) } }
        }
        for rule in synonyms.oneWay {
            let source = Self.words(of: rule.source)
            for target in rule.targets { add(source, Self.words(of: target)) }
        }
        var rules: [[UInt16]: [Rule]] = [:]
        for source in order { rules[source[0], default: []].append(Rule(source: source, targets: targets[source] ?? [])) }
        self.rules = rules
    }

    public var isEmpty: Bool { stopWords.isEmpty && rules.isEmpty }

    /// The words of `text` as the index splits and folds them.
    static func words(of text: String) -> [[UInt16]] {
        var buffer = TokenBuffer()
        Normalizer.scan(text, into: &buffer)
        return buffer.spans.map { Array(buffer.units(of: $0)) }
    }

    /// The words of a query with its stop words dropped (all kept if all are stop words), and
    /// the phrases each word may also be found by.
    func plan(_ typed: [QueryWord]) -> QueryPlan {
        var words = typed
        if !stopWords.isEmpty, !words.allSatisfy({ stopWords.contains($0.units) }) {
            words.removeAll { stopWords.contains($0.units) }
        }
        var alternatives = [[[[UInt16]]]](repeating: [], count: words.count)
        if !rules.isEmpty {
            for start in words.indices {
                for rule in rules[words[start].units] ?? [] {
                    let end = start + rule.source.count
                    guard end <= words.count, zip(rule.source, words[start..<end]).allSatisfy({ $0 == $1.units }) else { continue }
                    for slot in start..<end {
                        for target in rule.targets where alternatives[slot].count < Self.maxAlternativesPerWord {
                            if !alternatives[slot].contains(target) { alternatives[slot].append(target) }
                        }
                    }
                }
            }
        }
        return QueryPlan(words: words, alternatives: alternatives)
    }
}

/// What a collection query searches for: its words (stop words dropped), and for each word the
/// phrases a synonym lets stand for it (all of a phrase's words must be in the document, exactly).
struct QueryPlan: Sendable {
    var words: [QueryWord]
    var alternatives: [[[[UInt16]]]]

    var hasAlternatives: Bool { alternatives.contains { !$0.isEmpty } }

    /// The words a hit's highlights look for: the typed ones, and the synonyms' (exact).
    var highlightWords: [QueryWord] {
        var all = words
        for phrase in alternatives.joined() {
            for units in phrase where !all.contains(where: { $0.units == units && !$0.isPrefix }) {
                var word = QueryWord(units: units, isPrefix: false, isCJK: false)
                word.typoBudget = 0
                all.append(word)
            }
        }
        return all
    }
}
