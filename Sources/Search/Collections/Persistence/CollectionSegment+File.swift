#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A segment's file: everything a query reads, as built, so that loading it is copying arrays
/// (no JSON decoded, no term sorted, no column built); the bodies are not even read, but read
/// from the file when a hit shows one.
extension CollectionSegment {
    /// The format's version is its last three digits: a file of another version is refused as
    /// `unknownFormat` (never misread) and its collection rebuilt from the store. 001: string
    /// columns as plain arenas; 002: front-coded values and only the spellings that differ.
    static let fileMagic = Array("SBSEG002".utf8)

    /// `<directory>/<serial in hex>.segment`.
    static func fileName(serial: UInt64) -> String {
        String(serial, radix: 16) + ".segment"
    }

    /// Where a segment file keeps its bodies: byte offsets of the arena and of the ends.
    struct BodiesLocation {
        let bytesOffset: Int
        let bytesCount: Int
        let endsOffset: Int
    }

    /// Writes the segment to `path` (replacing any file there, atomically); returns where its
    /// bodies are in the file.
    @discardableResult
    func write(to path: String) throws(IndexFileError) -> BodiesLocation {
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
            try writer.append(array: idTable.persistedSlots)
            let (bytesOffset, bytesCount, endsOffset) = try bodies.withBuffers { bytes, ends throws(IndexFileError) in
                (try writer.append(count: bytes.count, raw: bytes), bytes.count, try writer.append(count: ends.count, raw: UnsafeRawBufferPointer(ends)))
            }
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
            return BodiesLocation(bytesOffset: bytesOffset, bytesCount: bytesCount, endsOffset: endsOffset)
        } catch {
            writer.abandon()
            throw error
        }
    }

    /// The bodies of the segment file at `path` (just written, at `location`), to be read from
    /// there; nil if it cannot be opened or is shorter than written.
    func fileBodies(at path: String, _ location: BodiesLocation) -> SegmentBodies? {
        guard let file = try? OpenFile(path: path), location.bytesOffset + location.bytesCount <= file.size else { return nil }
        let ends = bodies.withEnds { BodyEnds($0, total: location.bytesCount) }
        return SegmentBodies(file: file, offset: location.bytesOffset, ends: ends)
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
        // The tags are not in the file (SBSEG002 was kept): derived again, every id's slot found.
        let idTable: IdTable
        do throws(IdTable.SlotsError) {
            idTable = try idBytes.withUnsafeBufferPointer { bytes throws(IdTable.SlotsError) in try IdTable(persisted: slots, ids: bytes, ends: idEnds) }
        } catch {
            throw IndexFileError(.inconsistent, path: reader.path, "an id table that does not find its ids (\(error))")
        }
        // Bodies stay in the file, read when a hit shows one; their ends are kept (4 bytes each).
        let bodyBytes = try reader.skipArray(of: UInt8.self)
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
        #if canImport(Glibc)
        // Hits read a body here and there: no read-ahead around them.
        _ = posix_fadvise(reader.file.descriptor, off_t(bodyBytes.offset), off_t(bodyBytes.count), POSIX_FADV_RANDOM)
        #endif
        let dictionary = TermDictionary(termUnits: termUnits, termStarts: termStarts, termKeys: termKeys, runEnds: runEnds)
        return CollectionSegment(
            serial: serial, ids: ids, idTable: idTable, bodies: SegmentBodies(file: reader.file, offset: bodyBytes.offset, ends: BodyEnds(bodyEnds, total: bodyBytes.count)), ranks: ranks,
            text: SegmentText(dictionary: dictionary, postings: postings, postingStarts: postingStarts), columns: columns)
    }
}
