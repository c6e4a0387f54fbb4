/// Computes the highlight ranges of a hit's name.
enum Highlighter {
    /// Ranges of `name` (Unicode scalar offsets, half-open, ascending, merged) matched by `words`.
    static func ranges(in name: String, words: [QueryWord]) -> [[Int]] {
        var buffer = TokenBuffer()
        Normalizer.scan(name, into: &buffer, recordSources: true)
        var ranges: [(Int, Int)] = []
        for span in buffer.spans {
            let token = buffer.units(of: span)
            var best = 0
            for word in words {
                if let (_, length) = word.match(token) { best = max(best, length) }
            }
            guard best > 0 else { continue }
            let end = best >= span.unitCount ? Int(span.scalarEnd) : Int(buffer.sources[Int(span.unitStart) + best - 1]) + 1
            ranges.append((Int(span.scalarStart), end))
        }
        var merged: [[Int]] = []
        for (start, end) in ranges.sorted(by: { $0.0 < $1.0 }) {
            if let last = merged.last, start <= last[1] {
                merged[merged.count - 1][1] = max(last[1], end)
            } else {
                merged.append([start, end])
            }
        }
        return merged
    }
}
