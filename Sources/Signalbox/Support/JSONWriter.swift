/// Appends JSON values to a byte buffer.
///
/// For the search hot path only: Foundation's `JSONEncoder` spent more CPU on a
/// page of ten hits than the search itself (perf on an uncached `/search` load).
/// Output matches `JSONCoding.encoder` (`JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes`) as long as callers write keys in sorted order.
///
/// The buffer is its own (not an `Array`): a page of hits is a few hundred small
/// appends, and `Array.append(contentsOf:)` cost about 70 instructions each in
/// uniqueness and capacity checks (callgrind, uncached `/search`), more than the copies.
struct JSONWriter: ~Copyable {
    private var start: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int = 0) {
        self.capacity = Swift.max(capacity, 64)
        start = .allocate(capacity: self.capacity)
    }

    deinit {
        start.deallocate()
    }

    /// What was written so far.
    var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: start, count: count))
    }

    /// What was written, then `json` and `last`, in one allocation.
    func bytes(followedBy json: [UInt8], and last: UInt8) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count + json.count + 1) { buffer, initialized in
            let base = buffer.baseAddress!
            base.initialize(from: start, count: count)
            json.withUnsafeBufferPointer { (base + count).initialize(from: $0.baseAddress!, count: $0.count) }
            base[count + json.count] = last
            initialized = count + json.count + 1
        }
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// Bytes that already are JSON.
    mutating func raw(_ json: [UInt8]) {
        json.withUnsafeBufferPointer { append($0) }
    }

    /// A string literal, escaped as RFC 8259 requires (quote, backslash, control characters).
    mutating func string(_ value: String) {
        // Most strings need no escape: copied while checked, eight bytes a step.
        let copied = value.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            let length = utf8.count
            reserve(length + 2)
            let out = start + count
            out[0] = UInt8(ascii: "\"")
            if let source = utf8.baseAddress {
                var offset = 0
                while offset + 8 <= length {
                    let word = UnsafeRawPointer(source).loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    guard !Self.mayNeedEscape(word) else { return false }
                    UnsafeMutableRawPointer(out + 1).storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
                    offset += 8
                }
                while offset < length {
                    let byte = source[offset]
                    guard byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { return false }
                    out[offset + 1] = byte
                    offset += 1
                }
            }
            out[length + 1] = UInt8(ascii: "\"")
            count += length + 2
            return true
        }
        if copied != true { escaped(value) }
    }

    /// Whether one of the word's bytes is below 0x20, a quote or a backslash (a byte below 1
    /// after XOR with the character is one equal to it). Never false when one is; the
    /// escaping path decides byte by byte.
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasByteBelow(_ word: UInt64, _ bound: UInt64) -> Bool {
            (word &- ones &* bound) & ~word & highs != 0
        }
        return hasByteBelow(word, 0x20) || hasByteBelow(word ^ (ones &* 0x22), 1) || hasByteBelow(word ^ (ones &* 0x5C), 1)
    }

    private mutating func escaped(_ value: String) {
        append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0..<0x20:
                raw("\\u00")
                append(Self.hexDigit(byte >> 4))
                append(Self.hexDigit(byte & 0xF))
            default: append(byte)
            }
        }
        append(UInt8(ascii: "\""))
    }

    /// An object key followed by its colon.
    mutating func key(_ name: String) {
        string(name)
        append(UInt8(ascii: ":"))
    }

    /// A key known to need no escape (a literal of the caller's), followed by its colon.
    mutating func plainKey(_ name: StaticString) {
        let length = name.utf8CodeUnitCount
        reserve(length + 3)
        let out = start + count
        out[0] = UInt8(ascii: "\"")
        (out + 1).initialize(from: name.utf8Start, count: length)
        out[length + 1] = UInt8(ascii: "\"")
        out[length + 2] = UInt8(ascii: ":")
        count += length + 3
    }

    mutating func number(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude, decimals: 0)
    }

    mutating func number(_ value: Int) {
        number(Int64(value))
    }

    /// The shortest text that reads back as `value`, like `JSONEncoder` ("1" for 1.0);
    /// `null` for NaN and infinities, which JSON cannot carry.
    mutating func number(_ value: Double) {
        guard value.isFinite else { return raw("null") }
        if appendShortDecimal(value) { return }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        string(unquoted: text)
    }

    /// Writes `value` as `n / 10^k` for the smallest `k` whose quotient is exactly `value`,
    /// when `n` has at most 15 digits: coordinates and other short decimals, without
    /// `description` (a quarter of the hits' encoding went to it for two coordinates a hit).
    ///
    /// That text is the shortest that reads back as `value` (a shorter one would have been found
    /// at a smaller `k`), and it is the only one of its length (15 digits are fewer than a
    /// `Double` tells apart), so it is the text `description` gives. `description` switches to
    /// an exponent below 1e-4 and from 2^53; those, and longer digit strings, return false.
    private mutating func appendShortDecimal(_ value: Double) -> Bool {
        let magnitude = value.magnitude
        if magnitude == 0 {
            value.sign == .minus ? raw("-0") : raw("0")
            return true
        }
        guard magnitude >= 1e-4, magnitude < 1e15 else { return false }
        var scale = 1.0
        for decimals in 0...15 {
            let product = magnitude * scale
            guard product < 1e15 else { return false }
            // Nearest integer: where a k-decimal text exists, the product lies within 0.25 of
            // it, so adding a half and truncating cannot miss it (and is no call to round()).
            let digits = UInt64(product + 0.5)
            // Both are integers below 2^53, so the division is the correctly rounded decimal.
            if Double(digits) / scale == magnitude {
                if value < 0 { append(UInt8(ascii: "-")) }
                appendDigits(digits, decimals: decimals)
                return true
            }
            scale *= 10
        }
        return false
    }

    /// `value`'s decimal digits, with a point before the last `decimals` of them (zeros added
    /// in front as needed: 5 with 2 decimals is "0.05").
    private mutating func appendDigits(_ value: UInt64, decimals: Int) {
        var digitCount = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digitCount += 1
        }
        let shown = Swift.max(digitCount, decimals + 1)
        let length = shown + (decimals > 0 ? 1 : 0)
        reserve(length)
        // Written backwards, in place: no String per number.
        var position = count + length
        rest = value
        for written in 0..<shown {
            if written == decimals && decimals > 0 {
                position -= 1
                start[position] = UInt8(ascii: ".")
            }
            position -= 1
            start[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        count += length
    }

    mutating func bool(_ value: Bool) {
        value ? raw("true") : raw("false")
    }

    /// Text known to need no quotes or escapes (a number's).
    private mutating func string(unquoted text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    // MARK: The buffer

    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    @inline(never)
    private mutating func grow(to needed: Int) {
        let larger = Swift.max(needed, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: start, count: count)
        start.deallocate()
        start = moved
        capacity = larger
    }

    private mutating func append(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    private mutating func append(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress else { return }
        reserve(buffer.count)
        (start + count).initialize(from: base, count: buffer.count)
        count += buffer.count
    }
}
