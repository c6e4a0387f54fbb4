import Base
import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A collection index kept on disk, so that a restart loads it instead of decoding every stored
/// body and building every segment again.
///
/// A directory per collection holds one file per segment (`<serial>.segment`, written once:
/// segments never change) and a `manifest` naming the current segments with each one's mask of
/// deleted documents, the schema, the store's epoch and the sequence number the index is current
/// at. Saving writes only the segments not on disk yet, then the manifest (atomically), then
/// removes the segment files no manifest names. Every file carries a checksum and every array is
/// bounds-checked on load: a missing, truncated or corrupt file is an ``IndexFileError``, and the
/// caller rebuilds from its store.
extension CollectionIndex {
    static let manifestMagic = Array("SBIDX001".utf8)
    static let manifestName = "manifest"

    /// What a persisted index was saved with.
    public struct Saved: Sendable {
        /// The store's sequence number it is current at.
        public let sequence: Int64
        /// The epoch of the store it was built from (``CollectionIndex/restore(from:configuration:)`` callers compare).
        public let epoch: String
        /// Segment files written this time (the others were on disk already).
        public let segmentsWritten: Int
        /// Bytes of the files written this time.
        public let bytesWritten: Int
    }

    /// Saves the current snapshot into `directory` (created if needed); `epoch` names the store.
    /// Safe to call while writes go on (the snapshot is immutable); callers serialize saves of
    /// one directory.
    @discardableResult
    public func save(to directory: String, epoch: String) throws(IndexFileError) -> Saved {
        let snapshot = snapshot
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw IndexFileError(.io, path: directory, "\(error)")
        }
        var written = 0, bytes = 0
        var locations: [(segment: CollectionSegment, path: String, location: CollectionSegment.BodiesLocation)] = []
        for part in snapshot.parts {
            let path = directory + "/" + CollectionSegment.fileName(serial: part.segment.serial)
            if FileManager.default.fileExists(atPath: path) { continue }
            locations.append((part.segment, path, try part.segment.write(to: path)))
            written += 1
            bytes += (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        }
        var writer = try IndexFileWriter(path: directory + "/" + Self.manifestName, magic: Self.manifestMagic)
        do {
            try writer.append(bytes: Array(epoch.utf8))
            try writer.append(snapshot.sequence)
            try writer.append(bytes: schema.encodedJSON())
            try writer.append(UInt64(snapshot.parts.count))
            for part in snapshot.parts {
                try writer.append(part.segment.serial)
                try writer.append(UInt64(part.segment.count))
                try writer.append(UInt64(part.deletedCount))
                try writer.append(array: part.deleted.words)
            }
            bytes += writer.bytesWritten
            try writer.finish()
        } catch {
            writer.abandon()
            throw error
        }
        Self.syncDirectory(directory)
        Self.removeUnnamedFiles(in: directory, keeping: Set(snapshot.parts.map { CollectionSegment.fileName(serial: $0.segment.serial) }))
        // The bodies just written are read from their files from now on, not kept in memory.
        var inFiles: [UInt64: SegmentBodies] = [:]
        for written in locations {
            inFiles[written.segment.serial] = written.segment.fileBodies(at: written.path, written.location)
        }
        adoptBodies(inFiles)
        return Saved(sequence: snapshot.sequence, epoch: epoch, segmentsWritten: written, bytesWritten: bytes)
    }

    /// Loads the index saved in `directory`: its segments read on all cores, every file checked.
    public static func restore(
        from directory: String, configuration: Configuration = Configuration()
    ) throws(IndexFileError) -> (index: CollectionIndex, epoch: String) {
        let reader = try IndexFileReader(path: directory + "/" + manifestName, magic: manifestMagic)
        let epoch = String(decoding: try reader.bytes(), as: UTF8.self)
        let sequence = try reader.int64()
        let schemaJSON = try reader.bytes()
        let schema: CollectionSchema
        do {
            schema = try CollectionSchema.decode(json: schemaJSON, limits: .unlimited)
        } catch {
            throw IndexFileError(.inconsistent, path: reader.path, "its schema: \(error)")
        }
        let partCount = try reader.count(atMost: 1 << 20)
        var entries: [(serial: UInt64, count: Int, deletedCount: Int, deleted: DocumentSet)] = []
        for _ in 0..<partCount {
            let serial = try reader.uint64()
            let count = try reader.count(atMost: SegmentText.maxDocuments)
            let deletedCount = try reader.count(atMost: count)
            let deleted = try reader.documentSet(capacity: count)
            try reader.check(deleted.count == deletedCount, "a part's deleted count")
            entries.append((serial, count, deletedCount, deleted))
        }
        try reader.check(reader.isAtEnd, "bytes after the last part")
        let layout = SchemaLayout(schema)
        let results = Locked<[Result<CollectionSegment, IndexFileError>?]>(Array(repeating: nil, count: entries.count))
        let serials = entries.map(\.serial)
        DispatchQueue.concurrentPerform(iterations: serials.count) { i in
            let path = directory + "/" + CollectionSegment.fileName(serial: serials[i])
            let result = Result { () throws(IndexFileError) -> CollectionSegment in
                try CollectionSegment.read(from: path, serial: serials[i], layout: layout)
            }
            results.withLock { $0[i] = result }
        }
        var parts: [CollectionSnapshot.Part] = []
        for (entry, result) in zip(entries, results.withLock { $0 }) {
            let segment = try result!.get()
            try reader.check(segment.count == entry.count, "segment \(entry.serial) holds \(segment.count) documents, not \(entry.count)")
            parts.append(CollectionSnapshot.Part(segment, deleted: entry.deleted, deletedCount: entry.deletedCount))
        }
        let snapshot = CollectionSnapshot(parts: parts, version: 0, sequence: sequence)
        let index = CollectionIndex(schema: schema, layout: layout, restoring: snapshot, configuration: configuration)
        index.scheduleMerges()
        return (index, epoch)
    }

    /// Makes the manifest's rename durable.
    private static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// Removes segment files no manifest names, and partial files a crash left.
    private static func removeUnnamedFiles(in directory: String, keeping names: Set<String>) {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for file in files where (file.hasSuffix(".segment") && !names.contains(file)) || file.hasSuffix(".partial") {
            unlink(directory + "/" + file)
        }
    }
}

extension SchemaLimits {
    /// No bounds: for a schema the service accepted when it was put.
    static let unlimited: SchemaLimits = {
        var limits = SchemaLimits()
        limits.maxFields = .max
        limits.maxBodyBytes = .max
        return limits
    }()
}
