/// A segment's file: everything a query reads, as built, so that loading it is copying arrays
/// (no JSON decoded, no term sorted, no column built).
extension CollectionSegment {
    static let fileMagic = Array("SBSEG001".utf8)

    /// `<directory>/<serial in hex>.segment`.
    static func fileName(serial: UInt64) -> String {
        String(serial, radix: 16) + ".segment"
    }

    /// Writes the segment to `path` (replacing any file there, atomically).
    func write(to path: String) throws(IndexFileError) {
        var writer = try IndexFileWriter(path: path, magic: Self.fileMagic)
        do {
            try writer.append(serial)
            try writer.append(UInt64(count))
            var idBytes: [UInt8] = []
            var idEnds: [UInt32] = []
            idEnds.reserveCapacity(count)
            for id in ids {
                idBytes += id.utf8
                idEnds.append(UInt32(idBytes.count))
            }
            try writer.append(bytes: idBytes)
            try writer.append(array: idEnds)
            try writer.append(array: idTable.slots)
            try writer.append(bytes: bodyBytes)
            try writer.append(array: bodyEnds)
            try writer.append(array: ranks)
            let dictionary = text.dictionary
            try writer.append(array: dictionary.termUnits)
            try writer.append(array: dictionary.termStarts)
            try writer.append(array: dictionary.termKeys)
            for ends in dictionary.runEnds { try writer.append(array: ends) }
            try writer.append(array: text.postings)
            try writer.append(array: text.postingStarts)
            try writer.append(UInt64(columns.count))
            for column in columns { try column.write(to: &writer) }
            try writer.finish()
        } catch {
            writer.abandon()
            throw error
        }
    }

    /// Reads the segment `serial` from `path`, checked against `layout` (its schema's fields).
    static func read(from path: String, serial: UInt64, layout: SchemaLayout) throws(IndexFileError) -> CollectionSegment {
        let reader = try IndexFileReader(path: path, magic: fileMagic)
        try reader.check(try reader.uint64() == serial, "another segment's file")
        let count = try reader.count(atMost: SegmentText.maxDocuments)
        let idBytes = try reader.bytes()
        let idEnds = try reader.array(of: UInt32.self, count: count)
        try reader.checkEnds(idEnds, upTo: idBytes.count, endingAt: idBytes.count, "ids")
        var ids: [String] = []
        ids.reserveCapacity(count)
        idBytes.withUnsafeBufferPointer { bytes in
            var start = 0
            for end in idEnds {
                ids.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<Int(end)]), as: UTF8.self))
                start = Int(end)
            }
        }
        let slots = try reader.array(of: UInt32.self)
        try reader.check(slots.count >= 16 && slots.count & (slots.count - 1) == 0 && slots.count >= count * 2, "an id table of \(slots.count) slots")
        try reader.checkBelow(slots, count + 1, "an id table slot")
        let bodyBytes = try reader.bytes()
        let bodyEnds = try reader.array(of: Int.self, count: count)
        try reader.checkEnds(bodyEnds, upTo: bodyBytes.count, endingAt: bodyBytes.count, "bodies")
        let ranks = try reader.array(of: Double.self, count: layout.rankField == nil ? 0 : count)
        let termUnits = try reader.array(of: UInt16.self)
        let termStarts = try reader.array(of: UInt32.self)
        try reader.check(!termStarts.isEmpty && termStarts[0] == 0, "term starts")
        try reader.checkEnds(termStarts, upTo: termUnits.count, endingAt: termUnits.count, "term starts")
        let termCount = termStarts.count - 1
        let termKeys = try reader.array(of: UInt64.self, count: termCount)
        var runEnds: [[UInt32]] = []
        for _ in 0..<3 {
            let ends = try reader.array(of: UInt32.self, count: termCount)
            try reader.checkBelow(ends, termCount + 1, "a run end")
            runEnds.append(ends)
        }
        let postings = try reader.array(of: UInt32.self)
        for posting in postings { try reader.check(Int(posting & SegmentText.documentMask) < count, "a posting past the segment") }
        let postingStarts = try reader.array(of: Int.self, count: termCount + 1)
        try reader.checkEnds(postingStarts, upTo: postings.count, endingAt: postings.count, "posting starts")
        let fields = layout.schema.fields
        try reader.check(try reader.uint64() == UInt64(fields.count), "another number of columns than the schema's fields")
        var columns: [FieldColumn] = []
        for field in fields { columns.append(try FieldColumn.read(from: reader, type: field.type, count: count)) }
        try reader.check(reader.isAtEnd, "bytes after the last column")
        let dictionary = TermDictionary(termUnits: termUnits, termStarts: termStarts, termKeys: termKeys, runEnds: runEnds)
        return CollectionSegment(
            serial: serial, ids: ids, idTable: IdTable(slots: slots), bodyBytes: bodyBytes, bodyEnds: bodyEnds, ranks: ranks,
            text: SegmentText(dictionary: dictionary, postings: postings, postingStarts: postingStarts), columns: columns)
    }
}
