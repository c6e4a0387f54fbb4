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
        let spans = buffer.spans.count
        // The ranges are gathered on the stack and become arrays at the end, each of its final
        // size: appending them one by one cost more than the matching (callgrind, uncached /search).
        return withUnsafeTemporaryAllocation(of: (start: Int, end: Int).self, capacity: max(spans, 1)) { found in
            var count = 0
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
                found[count] = (Int(span.scalarStart), end)
                count += 1
            }
            // Array literals: the compiler allocates them for their element type directly (a
            // generic initializer or appends to `[[Int]]` look its storage type up at run time).
            switch count {
            case 0: return []
            case 1: return [[found[0].start, found[0].end]]
            case 2: return [[found[0].start, found[0].end], [found[1].start, found[1].end]]
            default: return (0..<count).map { [found[$0].start, found[$0].end] }
            }
        }
    }
}
