import Foundation

/// How one input scalar takes part in a token after folding.
enum ScalarKind: UInt8 {
    /// Ends the current token (spaces, punctuation, symbols).
    case separator = 0
    /// Produces word characters (letters, digits) in the current token.
    case word = 1
    /// Dropped without ending the token (combining marks, apostrophes, format characters).
    case ignorable = 2
    /// A character of a script written without spaces (Han, kana, Hangul): a token of its own kind.
    case cjk = 3
}

/// Folding of single scalars: lowercase, compatibility decomposition, marks removed, special folds.
///
/// Precomputed for U+0000..U+2FFF (every alphabet the data uses apart from CJK) so that the hot
/// path is one array read per scalar; other scalars go through Foundation one at a time.
struct FoldTable: Sendable {
    static let tableLimit: UInt32 = 0x3000

    /// Per scalar: kind (2 bits) << 30 | count (6 bits) << 24 | offset into `outputs` (24 bits).
    let entries: [UInt32]
    /// Folded scalars (values) referred to by `entries`.
    let outputs: [UInt32]

    static let shared = FoldTable()

    private init() {
        var entries = [UInt32](repeating: 0, count: Int(Self.tableLimit))
        var outputs: [UInt32] = []
        outputs.reserveCapacity(Int(Self.tableLimit) + 512)
        for value in 0..<Self.tableLimit {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let (kind, folded) = Self.fold(scalar)
            let offset = UInt32(outputs.count)
            outputs.append(contentsOf: folded.map(\.value))
            entries[Int(value)] = UInt32(kind.rawValue) << 30 | UInt32(folded.count) << 24 | offset
        }
        self.entries = entries
        self.outputs = outputs
        // ASCII has no compatibility decompositions: each letter or digit folds to one ASCII unit.
        asciiUnits = (0..<256).map { byte -> UInt16 in
            guard byte < 0x80 else { return Self.asciiOther }
            let entry = entries[byte]
            switch ScalarKind(rawValue: UInt8(entry >> 30))! {
            case .separator: return Self.asciiSeparator
            case .ignorable: return Self.asciiIgnorable
            case .word, .cjk:
                precondition(entry >> 24 & 0x3F == 1 && outputs[Int(entry & 0xFF_FFFF)] > UInt32(Self.asciiOther), "an ASCII fold")
                return UInt16(outputs[Int(entry & 0xFF_FFFF)])
            }
        }
    }

    /// Per byte, what `Normalizer`'s ASCII scan makes of it: the one unit a letter or digit folds
    /// to, or ``asciiSeparator``, ``asciiIgnorable``, ``asciiOther`` (a byte of a non-ASCII scalar).
    /// One read a byte, no kind and count to take apart (an import tokenizes every searched value).
    let asciiUnits: [UInt16]
    static let asciiSeparator: UInt16 = 0
    static let asciiIgnorable: UInt16 = 1
    static let asciiOther: UInt16 = 2

    /// Apostrophes and similar signs inside names join the letters around them: "N'Djamena" is "ndjamena".
    static let joiners: Set<UInt32> = [0x27, 0x60, 0xB4, 0x2BB, 0x2BC, 0x2BD, 0x2BE, 0x2BF, 0x2018, 0x2019, 0x2032]

    /// Folds that decomposition and lowercasing do not make, applied to each resulting scalar.
    static let specialFolds: [UInt32: String] = [
        0xDF: "ss", 0x1E9E: "ss", 0xE6: "ae", 0x153: "oe", 0xF8: "o", 0x142: "l", 0x111: "d",
        0xF0: "d", 0xFE: "th", 0x131: "i", 0x127: "h", 0x167: "t", 0x138: "k", 0x14B: "n",
        0x180: "b", 0x1E5: "g", 0x268: "i", 0x289: "u", 0x192: "f", 0x1B6: "z", 0x188: "c",
        0x253: "b", 0x257: "d", 0x260: "g", 0x199: "k", 0x1A5: "p", 0x1AD: "t", 0x2B0: "h",
        0x3C2: "\u{3C3}",  // Greek final sigma → sigma
        0x649: "\u{64A}", 0x629: "\u{647}", 0x6CC: "\u{64A}", 0x6A9: "\u{643}", 0x671: "\u{627}",  // Arabic
        0x5DA: "\u{5DB}", 0x5DD: "\u{5DE}", 0x5DF: "\u{5E0}", 0x5E3: "\u{5E4}", 0x5E5: "\u{5E6}",  // Hebrew finals
    ]

    /// Folds one scalar the slow way (Foundation); also used for scalars outside the table.
    static func fold(_ scalar: Unicode.Scalar) -> (ScalarKind, [Unicode.Scalar]) {
        let value = scalar.value
        if joiners.contains(value) || value == 0x640 /* Arabic tatweel */ { return (.ignorable, []) }
        if isCJK(value) {
            // Keep these composed (kana with voicing marks, Hangul syllables); widen half-width kana.
            let composed = String(scalar).precomposedStringWithCompatibilityMapping
            return (.cjk, Array(composed.unicodeScalars))
        }
        if (0xFF01...0xFF5E).contains(value), let ascii = Unicode.Scalar(value - 0xFEE0) {
            return fold(ascii)  // full-width ASCII
        }
        let category = scalar.properties.generalCategory
        if category == .nonspacingMark || category == .enclosingMark || category == .format {
            return (.ignorable, [])
        }
        var result: [Unicode.Scalar] = []
        let decomposed = String(scalar).lowercased().decomposedStringWithCompatibilityMapping
        for part in decomposed.unicodeScalars {
            let special = specialFolds[part.value].map { Array($0.unicodeScalars) } ?? [part]
            for folded in special {
                for lower in String(folded).lowercased().unicodeScalars where isWordScalar(lower) {
                    result.append(lower)
                }
            }
        }
        if result.isEmpty { return (.separator, []) }
        return (.word, result)
    }

    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .spacingMark:
            return true
        default:
            return false
        }
    }

    /// Han, kana, Hangul and their compatibility forms: scripts written without spaces between words.
    static func isCJK(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x11FF, 0x3040...0x30FF, 0x3005, 0x3007, 0x3130...0x318F, 0x31F0...0x31FF,
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA960...0xA97F, 0xAC00...0xD7FF, 0xF900...0xFAFF,
            0xFF66...0xFFDC, 0x20000...0x3FFFF:
            return true
        default:
            return false
        }
    }
}
