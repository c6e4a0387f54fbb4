/// Text normalization shared by indexing and querying.
///
/// Each scalar is lowercased, decomposed (Unicode compatibility decomposition, NFKD), stripped of
/// combining marks and given the usual special folds (ß→ss, æ→ae, ø→o, ł→l, đ→d, þ→th, œ→oe, ı→i,
/// Greek final sigma, Arabic alef/yeh/teh-marbuta variants, Hebrew final letters). Tokens are runs of
/// letters and digits; apostrophes join ("N'Djamena" → "ndjamena"); everything else separates.
/// Han, kana and Hangul are kept composed and form tokens of their own, split from other scripts,
/// so a Chinese, Japanese or Korean name is found by its leading characters (prefix search).
public enum Normalizer {
    /// Longest token kept, in UTF-16 units; longer tokens are cut (bounds the typo search).
    public static let maxTokenUnits = 48

    /// The normalized tokens of `text` joined by single spaces.
    static func normalize(_ text: String) -> String {
        tokenize(text).joined(separator: " ")
    }

    /// The normalized tokens of `text`, in order.
    public static func tokenize(_ text: String) -> [String] {
        var buffer = TokenBuffer()
        scan(text, into: &buffer)
        return buffer.spans.map { String(decoding: buffer.units[Int($0.unitStart)..<Int($0.unitEnd)], as: UTF16.self) }
    }

    /// Tokenizes `text` into `buffer` (cleared first): folded UTF-16 units plus one span per token
    /// with its position in the original text in Unicode scalar offsets.
    /// With `recordSources`, `buffer.sources[i]` is the scalar offset that produced unit `i`.
    static func scan(_ text: String, into buffer: inout TokenBuffer, recordSources: Bool = false) {
        buffer.removeAll()
        // Most names are ASCII: one table read per byte, no scalar decoding.
        let scannedASCII = text.utf8.withContiguousStorageIfAvailable { bytes in
            scanASCII(bytes, into: &buffer, recordSources: recordSources)
        }
        if scannedASCII == true { return }
        buffer.removeAll()  // the spans of an ASCII scan that met a non-ASCII byte
        let table = FoldTable.shared
        var tokenStart = -1  // unit offset of the open token, -1 when none
        var tokenScalarStart = 0
        var tokenKind = ScalarKind.separator
        var lastWordScalarEnd = 0
        var scalarIndex = 0

        func close() {
            if tokenStart >= 0 {
                buffer.spans.append(
                    TokenSpan(
                        unitStart: Int32(tokenStart), unitEnd: Int32(buffer.units.count),
                        scalarStart: Int32(tokenScalarStart), scalarEnd: Int32(lastWordScalarEnd),
                        isCJK: tokenKind == .cjk))
            }
            tokenStart = -1
        }

        func append(_ value: UInt32, kind: ScalarKind) {
            if tokenStart >= 0, tokenKind != kind { close() }
            if tokenStart < 0 {
                tokenStart = buffer.units.count
                tokenScalarStart = scalarIndex
                tokenKind = kind
            }
            guard buffer.units.count - tokenStart < maxTokenUnits else { return }
            if value < 0x10000 {
                buffer.units.append(UInt16(truncatingIfNeeded: value))
                if recordSources { buffer.sources.append(Int32(scalarIndex)) }
            } else {
                let scalar = Unicode.Scalar(value)!
                for unit in String(scalar).utf16 {
                    buffer.units.append(unit)
                    if recordSources { buffer.sources.append(Int32(scalarIndex)) }
                }
            }
            lastWordScalarEnd = scalarIndex + 1
        }

        for scalar in text.unicodeScalars {
            defer { scalarIndex += 1 }
            let value = scalar.value
            if value < FoldTable.tableLimit {
                let entry = table.entries[Int(value)]
                let kind = ScalarKind(rawValue: UInt8(entry >> 30))!
                switch kind {
                case .separator: close()
                case .ignorable: continue
                case .word, .cjk:
                    let count = Int(entry >> 24 & 0x3F)
                    let offset = Int(entry & 0xFF_FFFF)
                    for i in offset..<offset + count { append(table.outputs[i], kind: kind) }
                }
            } else {
                let (kind, folded) = FoldTable.fold(scalar)
                switch kind {
                case .separator: close()
                case .ignorable: continue
                case .word, .cjk: for part in folded { append(part.value, kind: kind) }
                }
            }
        }
        close()
    }
}

extension Normalizer {
    /// `scan` for ASCII text (scalar offsets are byte offsets; no CJK), the same result; false,
    /// with spans already appended, at the first byte that is not ASCII. Units and sources are
    /// written to stack memory and appended at once (array appends per unit cost more than the
    /// scan itself); one read of `FoldTable.asciiUnits` a byte (an import tokenizes every searched
    /// value of every document, issue 25).
    private static func scanASCII(_ bytes: UnsafeBufferPointer<UInt8>, into buffer: inout TokenBuffer, recordSources: Bool) -> Bool {
        let capacity = max(bytes.count, 1)
        return withUnsafeTemporaryAllocation(of: UInt16.self, capacity: capacity) { units in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: recordSources ? capacity : 1) { sources in
                FoldTable.shared.asciiUnits.withUnsafeBufferPointer { table in
                    var count = 0
                    var index = 0
                    while index < bytes.count {
                        var unit = table[Int(bytes[index])]
                        if unit <= FoldTable.asciiOther {
                            if unit == FoldTable.asciiOther { return false }
                            index &+= 1  // a separator or an ignorable byte between tokens
                            continue
                        }
                        // A token: word bytes, and ignorable ones among them, up to a separator.
                        let tokenStart = count, tokenScalarStart = index, limit = count &+ maxTokenUnits
                        var lastWordScalarEnd = index
                        while true {
                            if unit > FoldTable.asciiOther {
                                // Units past the longest token are dropped (the token goes on).
                                if count < limit {
                                    units[count] = unit
                                    // Exact: the span's scalar end, converted with a check below, is past it.
                                    if recordSources { sources[count] = Int32(truncatingIfNeeded: index) }
                                    count &+= 1
                                    lastWordScalarEnd = index &+ 1
                                }
                            } else if unit == FoldTable.asciiSeparator {
                                break
                            } else if unit == FoldTable.asciiOther {
                                return false
                            }
                            index &+= 1
                            guard index < bytes.count else { break }
                            unit = table[Int(bytes[index])]
                        }
                        buffer.spans.append(
                            TokenSpan(
                                unitStart: Int32(tokenStart), unitEnd: Int32(count),
                                scalarStart: Int32(tokenScalarStart), scalarEnd: Int32(lastWordScalarEnd), isCJK: false))
                    }
                    buffer.units.append(contentsOf: UnsafeBufferPointer(rebasing: units[0..<count]))
                    if recordSources { buffer.sources.append(contentsOf: UnsafeBufferPointer(rebasing: sources[0..<count])) }
                    return true
                }
            }
        }
    }
}

/// One token found by `Normalizer.scan`.
struct TokenSpan: Sendable {
    var unitStart: Int32
    var unitEnd: Int32
    /// First scalar of the token in the original text.
    var scalarStart: Int32
    /// One past the last scalar of the token in the original text.
    var scalarEnd: Int32
    var isCJK: Bool

    var unitCount: Int { Int(unitEnd - unitStart) }
}

/// Reusable output of `Normalizer.scan`: no allocation per token.
struct TokenBuffer {
    var units: [UInt16] = []
    var spans: [TokenSpan] = []
    var sources: [Int32] = []

    mutating func reserve(units: Int) {
        self.units.reserveCapacity(units)
        spans.reserveCapacity(units / 4)
        sources.reserveCapacity(units)
    }

    mutating func removeAll() {
        // removeLast(_:) keeps the storage, like removeAll(keepingCapacity: true), for a fraction
        // of its cost (this runs once per highlighted hit).
        units.removeLast(units.count)
        spans.removeLast(spans.count)
        sources.removeLast(sources.count)
    }

    func units(of span: TokenSpan) -> ArraySlice<UInt16> {
        units[Int(span.unitStart)..<Int(span.unitEnd)]
    }
}
