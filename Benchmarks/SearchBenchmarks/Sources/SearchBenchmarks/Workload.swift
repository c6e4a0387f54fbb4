import Search

/// The keystroke workload: every prefix of a few hundred city names, a third of them with a typo.
enum Workload {
    /// Deterministic pseudo-random numbers (SplitMix64).
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    /// Names: the 150 most populous cities and 250 others drawn at random; each typed letter by
    /// letter; every third name also typed with two neighbouring letters swapped.
    static func queries(from documents: [Document], names: Int = 400) -> (queries: [String], names: [String]) {
        let byRank = documents.sorted { $0.rank > $1.rank }
        var random = Random(state: 42)
        var chosen = Array(byRank.prefix(150).map(\.name))
        while chosen.count < names { chosen.append(byRank[150 + random.below(byRank.count - 150)].name) }
        var queries: [String] = []
        for (index, name) in chosen.enumerated() {
            let characters = Array(name)
            for length in 1...characters.count { queries.append(String(characters[0..<length])) }
            if index % 3 == 0, characters.count >= 5 {
                var typo = characters
                let at = 1 + random.below(characters.count - 2)
                typo.swapAt(at, at + 1)
                for length in (at + 1)...typo.count { queries.append(String(typo[0..<length])) }
            }
        }
        return (queries, chosen)
    }
}
