/// A column's form in a segment file: a tag for its type, then its arrays.
extension FieldColumn {
    private enum Tag: UInt64 {
        case strings = 1, numbers, booleans, geo
    }

    func write(to writer: inout IndexFileWriter) throws(IndexFileError) {
        switch self {
        case .strings(let column):
            try writer.append(Tag.strings.rawValue)
            try writer.append(bytes: column.valueBytes)
            try writer.append(array: column.valueEnds)
            try writer.append(bytes: column.spellingBytes)
            try writer.append(array: column.spellingStarts)
            try writer.append(array: column.spellingEnds)
            try writer.append(array: column.valueDocuments)
            try writer.append(array: column.valueStarts)
            try writer.append(array: column.documentValues)
            try writer.append(array: column.documentStarts)
            try writer.append(array: column.present.words)
        case .numbers(let column):
            try writer.append(Tag.numbers.rawValue)
            try writer.append(array: column.values)
            try writer.append(array: column.order)
        case .booleans(let column):
            try writer.append(Tag.booleans.rawValue)
            try writer.append(array: column.values)
            try writer.append(array: column.trueDocuments.words)
            try writer.append(array: column.falseDocuments.words)
        case .geo(let column):
            try writer.append(Tag.geo.rawValue)
            try writer.append(array: column.latitudes)
            try writer.append(array: column.longitudes)
            try writer.append(array: column.cells)
        }
    }

    /// Reads the column of a field of `type` for `count` documents, checked.
    static func read(from reader: IndexFileReader, type: FieldType, count: Int) throws(IndexFileError) -> FieldColumn {
        let tag = Tag(rawValue: try reader.uint64())
        switch (type, tag) {
        case (.string, .strings?), (.stringArray, .strings?):
            let valueBytes = try reader.bytes()
            let valueEnds = try reader.array(of: UInt32.self)
            try reader.checkEnds(valueEnds, upTo: valueBytes.count, endingAt: valueBytes.count, "string values")
            let values = valueEnds.count
            let spellingBytes = try reader.bytes()
            let spellingStarts = try reader.array(of: UInt32.self)
            let spellingEnds = try reader.array(of: UInt32.self, count: spellingStarts.count)
            try reader.check(spellingStarts.count == values || (spellingStarts.isEmpty && spellingBytes.isEmpty), "spellings")
            for v in 0..<spellingStarts.count where spellingStarts[v] != .max {
                try reader.check(spellingStarts[v] <= spellingEnds[v] && Int(spellingEnds[v]) <= spellingBytes.count, "a spelling out of bounds")
            }
            let valueDocuments = try reader.array(of: UInt32.self)
            try reader.checkBelow(valueDocuments, count, "a value's documents")
            let valueStarts = try reader.array(of: UInt32.self, count: values + 1)
            try reader.checkEnds(valueStarts, upTo: valueDocuments.count, endingAt: valueDocuments.count, "value starts")
            let documentValues = try reader.array(of: UInt32.self)
            try reader.checkBelow(documentValues, values, "a document's values")
            let documentStarts = try reader.array(of: UInt32.self, count: count + 1)
            try reader.checkEnds(documentStarts, upTo: documentValues.count, endingAt: documentValues.count, "document starts")
            let present = try reader.documentSet(capacity: count)
            return .strings(StringColumn(
                valueBytes: valueBytes, valueEnds: valueEnds, spellingBytes: spellingBytes, spellingStarts: spellingStarts,
                spellingEnds: spellingEnds, valueDocuments: valueDocuments, valueStarts: valueStarts, documentValues: documentValues,
                documentStarts: documentStarts, present: present))
        case (.number, .numbers?):
            let values = try reader.array(of: Double.self, count: count)
            let order = try reader.array(of: UInt32.self)
            try reader.checkBelow(order, count, "a number column's order")
            return .numbers(NumberColumn(values: values, order: order))
        case (.boolean, .booleans?):
            let values = try reader.array(of: UInt8.self, count: count)
            try reader.checkBelow(values, Int(BooleanColumn.missing) + 1, "a boolean value")
            let trueDocuments = try reader.documentSet(capacity: count)
            let falseDocuments = try reader.documentSet(capacity: count)
            return .booleans(BooleanColumn(values: values, trueDocuments: trueDocuments, falseDocuments: falseDocuments))
        case (.geo, .geo?):
            let latitudes = try reader.array(of: Double.self, count: count)
            let longitudes = try reader.array(of: Double.self, count: count)
            let cells = try reader.array(of: UInt64.self)
            for cell in cells { try reader.check(Int(UInt32(truncatingIfNeeded: cell)) < count, "a geo cell's document past the segment") }
            return .geo(GeoColumn(latitudes: latitudes, longitudes: longitudes, cells: cells))
        default:
            throw IndexFileError(.inconsistent, path: reader.path, "a column of another type than its field's (\(type))")
        }
    }
}
