extension DocumentJSON {
    /// The bytes `JSONEncoder` makes of `document` with sorted keys and slashes unescaped (the
    /// store's body form, `JSONCoding.encoder`), written directly: the encoder cost about 49,000
    /// instructions a city on every `PUT`. Nil where the output could differ (an attribute name
    /// outside ASCII, whose order the encoder may see otherwise; a number that is not finite,
    /// which the encoder refuses): the caller encodes with `JSONEncoder` then.
    public static func body(of document: Document) -> [UInt8]? {
        guard document.rank.isFinite, document.attributes.keys.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } }) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(64 + document.name.utf8.count + document.alternateNames.reduce(0) { $0 + $1.utf8.count + 3 })
        out += #"{"alternateNames":["#.utf8
        for (offset, name) in document.alternateNames.enumerated() {
            if offset > 0 { out.append(UInt8(ascii: ",")) }
            appendString(name, to: &out)
        }
        out += #"],"attributes":{"#.utf8
        // Byte order is the encoder's order for ASCII keys.
        for (offset, key) in document.attributes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
            if offset > 0 { out.append(UInt8(ascii: ",")) }
            appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            switch document.attributes[key]! {
            case .string(let value): appendString(value, to: &out)
            case .int(let value): out += String(value).utf8
            case .double(let value):
                guard value.isFinite else { return nil }
                appendDouble(value, to: &out)
            case .bool(let value): out += (value ? "true" : "false").utf8
            }
        }
        out += #"},"id":"#.utf8
        appendString(document.id, to: &out)
        out += #","name":"#.utf8
        appendString(document.name, to: &out)
        out += #","rank":"#.utf8
        if let whole = Document.wholeRank(document.rank) {
            out += String(whole).utf8
        } else {
            appendDouble(document.rank, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// As the encoder writes a `Double`: its description without a trailing `.0`.
    private static func appendDouble(_ value: Double, to out: inout [UInt8]) {
        let text = value.description.utf8
        out += text.count > 2 && text.suffix(2).elementsEqual(".0".utf8) ? Array(text.dropLast(2)) : Array(text)
    }

    /// As the encoder escapes: `"`, `\` and the control characters (`\b \t \n \f \r` short, others
    /// `\u00xx`); everything else as it is, `/` included.
    private static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
