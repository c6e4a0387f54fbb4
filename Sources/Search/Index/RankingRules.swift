import Foundation

/// How much each way of matching a query costs against a document's rank.
///
/// Documents with as many query words matched are ordered by *weighted rank*: the rank divided
/// by the factor of how the query matched (the smallest factor that applies; 1 when the query is
/// the whole main name) and by `typo` for each typo. So a prefix of a world city outranks a
/// village of exactly that name only when the city's rank is more than `startOfName` times the
/// village's ("mosc" finds Moscow), while "york" still finds York before New York City ("york" is
/// a later word there); and a world city typed with a typo outranks a place named exactly what was
/// typed only when its rank is more than `typo` times the place's ("lindon" finds London before
/// Lindon, Utah; "parit" still finds Parit, not Paris).
public struct RankingRules: Sendable, Hashable {
    /// A whole alternate name, not the main name ("canton" for Guangzhou).
    public var alternateName: Double = 40
    /// The start of the main name: a prefix of its first word, or its first word when the name has
    /// more ("mosc" for Moscow, "rio" for Rio de Janeiro, "sao pa" for São Paulo).
    public var startOfName: Double = 8
    /// The start of an alternate name without being all of it: alternate names are many and
    /// mostly unknown, so a prefix of one says little.
    public var startOfAlternateName: Double = 1_024
    /// One word that matches a later word of the main name ("york" in "New York City").
    public var laterWordOfName: Double = 64
    /// One word that matches a later word of an alternate name only.
    public var laterWordOfAlternateName: Double = 4_096
    /// Each typo (of any word): set on the tuning part of the cities relevance set (256 and 512
    /// did best there, 32 lets "parit" find Paris before Parit, 1,024 and more lose typos of
    /// famous cities to exact names of small places).
    public var typo: Double = 256

    public static let `default` = RankingRules()

    public init() {}

    /// The factors as `RankLevel` steps, ready for the ranking key.
    struct Levels: Sendable, Hashable {
        /// Penalty of one word, shifted into the key: `oneWord[equal << 5 | flags]`, where `equal`
        /// says the (corrected) word equals the term and `flags` are the posting's occurrence flags.
        let oneWord: [UInt64]
        /// Penalty of several words: `severalWords[notWhole << 1 | inAlternate]`, where `notWhole` says
        /// they are not together a whole name and `inAlternate` that some matched only alternate names.
        let severalWords: [UInt64]
        /// Steps of one typo (not shifted).
        let typoSteps: UInt64
        /// What `typos` typos (0...2) add to one word's key: their steps, shifted into the
        /// penalty, and their count, kept for the hit (`RankKey.typoCountShift`).
        let oneWordTypos: [UInt64]

        init(_ rules: RankingRules) {
            let alternate = RankLevel.steps(rules.alternateName), start = RankLevel.steps(rules.startOfName)
            let startAlternate = RankLevel.steps(rules.startOfAlternateName)
            let later = RankLevel.steps(rules.laterWordOfName), laterAlternate = RankLevel.steps(rules.laterWordOfAlternateName)
            oneWord = (0..<64).map { index in
                let equal = index & 32 != 0
                let flags = UInt32(index & 31) << IndexCore.flagShift
                var best = laterAlternate
                if flags & IndexCore.inNameFlag != 0 { best = min(best, later) }
                if flags & IndexCore.startsAlternateFlag != 0 { best = min(best, startAlternate) }
                if flags & IndexCore.startsNameFlag != 0 { best = min(best, start) }
                if equal, flags & IndexCore.wholeNameFlag != 0 {
                    best = min(best, flags & IndexCore.wholeMainFlag != 0 ? 0 : alternate)
                }
                return best << RankKey.penaltyShift
            }
            severalWords = [0, alternate, start, startAlternate]
            typoSteps = RankLevel.steps(rules.typo)
            oneWordTypos = (0...2).map { [typoSteps] typos in
                UInt64(typos) * typoSteps << RankKey.penaltyShift | UInt64(typos) << RankKey.typoCountShift
            }
        }
    }
}

/// A rank on a logarithmic scale: `stepsPerOctave` steps per doubling, so that dividing a rank
/// by a factor is subtracting steps (a factor 1.09 apart at most is one step).
enum RankLevel {
    static let stepsPerOctave = 8.0
    /// Ranks up to 2^1023 have distinct levels; higher ones share the top.
    static let max: UInt16 = 8_191
    /// Largest penalty, in steps (a factor of 2^511).
    static let maxSteps: UInt64 = 4_095

    static func of(_ rank: Double) -> UInt16 {
        guard rank > 0 else { return 0 }
        return UInt16(Swift.min(log2(rank + 1) * stepsPerOctave, Double(max)))
    }

    /// A factor (at least 1) as steps.
    static func steps(_ factor: Double) -> UInt64 {
        guard factor.isFinite, factor > 1 else { return factor.isFinite ? 0 : maxSteps }
        return Swift.min(UInt64((log2(factor) * stepsPerOctave).rounded()), maxSteps)
    }
}
