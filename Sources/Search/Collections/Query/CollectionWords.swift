/// How a collection query's text becomes words: the cities' parsing (`ParsedQuery`), with more
/// words kept, and one typo for a short word that nothing holds as typed.
enum CollectionWords {
    /// Most words a collection query keeps (the cities keep 8): a file name or a title typed whole
    /// often has more, and its last words are the ones that tell it from its neighbours. The rank
    /// key counts the words missed in 4 bits (`CollectionRankKey`), so at most 15.
    static let maxWords = 15
    /// Letters of a word that takes no typo by its length (`QueryWord.typoBudget`) but takes one
    /// when no document holds it as typed.
    static let shortWordLetters = 4

    /// The words kept for `layout`: `maxWords`, or the cities' 8 when the schema searches so many
    /// fields that 15 words' weights would not fit the key's 8 bits (`SchemaLayout.maxFieldWeight`).
    static func maxWords(_ layout: SchemaLayout) -> Int {
        let heaviest = Int(layout.searched.last?.weight ?? 0)
        return heaviest * maxWords <= 255 ? maxWords : SearchQuery.Limits.maxWords
    }

    /// The words of `text`, at most `maxWords(layout)`.
    static func parse(_ text: String, layout: SchemaLayout) -> [QueryWord] {
        ParsedQuery(SearchQuery(text), maxWords: maxWords(layout)).words
    }

    /// Whether `word` is a short word of letters (not Han, kana or Hangul, which take no typos).
    static func isShort(_ word: QueryWord) -> Bool {
        word.units.count == shortWordLetters && word.typoBudget == 0 && word.units.allSatisfy { $0 < 0x2E80 }
    }

    /// `words` with one typo allowed to each short word that no segment of `snapshot` holds as
    /// typed (a whole word, or for the last one a word starting with it): a word of four letters
    /// typed with one left out (`geen`) or one wrong finds its word, while one that exists keeps
    /// its exact matches only (a typo there would add many unrelated words: `font`, `fond`, `front`).
    static func withShortWordTypos(_ words: [QueryWord], in snapshot: CollectionSnapshot) -> [QueryWord] {
        var words = words
        for index in words.indices where isShort(words[index]) {
            let word = words[index]
            let found = snapshot.parts.contains { part in
                let range = part.segment.text.dictionary.prefixRange(word.units)
                guard let first = range.first else { return false }
                return word.isPrefix || part.segment.text.dictionary.termLength(first) == word.units.count
            }
            if !found { words[index].typoBudget = 1 }
        }
        return words
    }
}
