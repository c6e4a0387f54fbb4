/// A column's form in a segment file: a tag for its type, then its arrays.
extension FieldColumn {
    private enum Tag: UInt64 {
        case strings = 1, numbers, booleans, geo
    }

    func write(to writer: inout IndexFileWriter) throws(IndexFileError) {
        switch self {
        case .strings(let column):
            try writer.append(Tag.strings.rawValue)
            try column.values.write(to: &writer)
            try writer.append(array: column.spelled)
            try column.spellings.write(to: &writer)
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
            let values = try FrontCodedStrings.read(from: reader, "string values")
            let spelled = try reader.array(of: UInt32.self)
            try reader.checkBelow(spelled, values.count, "a spelled value")
            try reader.checkAscending(spelled, "spelled values")
            let spellings = try FrontCodedStrings.read(from: reader, "spellings")
            try reader.check(spellings.count == spelled.count, "\(spellings.count) spellings of \(spelled.count) values")
            let valueDocuments = try reader.array(of: UInt32.self)
            try reader.checkBelow(valueDocuments, count, "a value's documents")
            let valueStarts = try reader.array(of: UInt32.self, count: values.count + 1)
            try reader.checkEnds(valueStarts, upTo: valueDocuments.count, endingAt: valueDocuments.count, "value starts")
            let documentValues = try reader.array(of: UInt32.self)
            let documentStarts = try reader.array(of: UInt32.self)
            if documentStarts.isEmpty {
                // Single-valued: one value (or none) a document.
                try reader.check(documentValues.count == count, "\(documentValues.count) single values of \(count) documents")
                for value in documentValues where value != StringColumn.noValue {
                    try reader.check(Int(value) < values.count, "a document's value: \(value) not below \(values.count)")
                }
            } else {
                try reader.checkBelow(documentValues, values.count, "a document's values")
                try reader.check(documentStarts.count == count + 1, "\(documentStarts.count) document starts of \(count) documents")
                try reader.checkEnds(documentStarts, upTo: documentValues.count, endingAt: documentValues.count, "document starts")
            }
            let present = try reader.documentSet(capacity: count)
            return .strings(StringColumn(
                values: values, spelled: spelled, spellings: spellings, valueDocuments: valueDocuments, valueStarts: valueStarts, documentValues: documentValues,
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

/// Front-coded strings in a segment file: their count, their bytes and their block starts.
extension FrontCodedStrings {
    func write(to writer: inout IndexFileWriter) throws(IndexFileError) {
        try writer.append(UInt64(count))
        try writer.append(bytes: bytes)
        try writer.append(array: blockStarts)
    }

    /// Reads and checks them (every block decoded once: a string read later stays in bounds).
    static func read(from reader: IndexFileReader, _ what: String) throws(IndexFileError) -> FrontCodedStrings {
        let count = try reader.count(atMost: Int(UInt32.max))
        let bytes = try reader.bytes()
        let blockStarts = try reader.array(of: UInt32.self)
        let strings = FrontCodedStrings(bytes: bytes, blockStarts: blockStarts, count: count)
        try reader.check(strings.isWellFormed, "\(what): blocks that do not decode")
        return strings
    }
}
