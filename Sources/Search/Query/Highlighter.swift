/// Computes the highlight ranges of a hit's name.
enum Highlighter {
    /// Ranges of `name` (Unicode scalar offsets, half-open, ascending, merged) matched by `words`.
    /// `buffer` is working memory, reused across hits. `typos`: the hit was found with typos (else
    /// only tokens equal to a word, or starting with the last, are marked: no distance rows);
    /// `earlyTypos`: early typos were looked for, so a token may match with a wrong first letter
    /// (the only case that compares tokens whose first unit differs from the word's).
    static func ranges(
        in name: String, words: [QueryWord], typos: Bool = true, earlyTypos: Bool = true, buffer: inout TokenBuffer
    ) -> [[Int]] {
        Normalizer.scan(name, into: &buffer, recordSources: true)
        let otherFirstUnits = typos && earlyTypos
        var merged: [[Int]] = []
        for span in buffer.spans {
            let token = buffer.units(of: span)
            var best = 0
            for word in words where word.units.first == token.first || (otherFirstUnits && word.typoBudget > 0) {
                if !typos {
                    if word.isPrefix ? token.starts(with: word.units) : token.elementsEqual(word.units) {
                        best = max(best, word.units.count)
                    }
                } else if let (_, length) = word.match(token) {
                    best = max(best, length)
                }
            }
            guard best > 0 else { continue }
            let end = best >= span.unitCount ? Int(span.scalarEnd) : Int(buffer.sources[Int(span.unitStart) + best - 1]) + 1
            // Tokens come in order and do not overlap: ranges are ascending and disjoint.
            merged.append([Int(span.scalarStart), end])
        }
        return merged
    }
}
