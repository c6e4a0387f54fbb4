import Base
import Dispatch
import Foundation
import Logging
import Search

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The collections' indexes kept on disk for the next start (`CollectionIndex+Persistence`),
/// one folder per collection under ``directory``.
///
/// The store stays the source of truth: a start loads each folder, offers what it loaded to the
/// store's read (``IndexCoverage``), which answers with only the documents written since, and a
/// folder that cannot be used (missing, damaged, another schema or store) is rebuilt from the
/// store as before. Saves run off the request path, one at a time, and write only the segments
/// not on disk yet. One process at a time uses a directory (an exclusive lock on its `.lock`
/// file); another one finding it locked persists nothing rather than mix two indexes.
final class PersistedIndexes: Sendable {
    /// A collection's index loaded from disk, with the store epoch it was built from and the
    /// mark of the history it holds (nil when none was saved with it).
    struct Loaded: Sendable {
        let index: CollectionIndex
        let epoch: String
        var mark: IndexMark?

        /// What the store's read is offered (``DocumentStore/snapshot(reusing:)``).
        var coverage: IndexCoverage {
            IndexCoverage(sequence: index.sequence, schema: index.schema, epoch: epoch, mark: mark)
        }
    }

    /// The file beside a collection's manifest holding its ``IndexMark`` (JSON); written after
    /// the manifest, removed before a new one is written, so it never names another manifest's
    /// history (a mark of another sequence than the manifest's is ignored).
    static let markName = "mark.json"

    let directory: String
    /// The digest of the base data set: the built-in cities' index is saved under the store's
    /// epoch and this (``citiesEpoch(_:)``), so another data set never loads it.
    let baseDigest: String
    private let logger: Logger
    /// What each collection's folder holds now: the index object and its revision when saved.
    private let saved = Locked<[String: (index: ObjectIdentifier, version: UInt64)]>([:])
    /// Saves one at a time (the periodic one, the one after start, the one at shutdown).
    private let saving = DispatchQueue(label: "signalbox.index.save", qos: .utility)
    /// Which collections went quiet since the last check (``saveQuiet(_:epoch:marking:)``).
    private let quietCollections = QuietCollections()
    /// How often the service checks for collections gone quiet (``saveQuiet(_:epoch:marking:)``).
    static let quietCheckInterval = 1.0
    /// The open `.lock` file holding the directory's lock; -1 once released.
    private let lockDescriptor: Locked<Int32>

    /// Where `settings` keep the indexes: nil when off (an empty `index.directory`, or on
    /// PostgreSQL with no port of its own to tell replicas apart).
    static func directory(for settings: Settings) -> String? {
        if let directory = settings.indexDirectory { return directory.isEmpty ? nil : directory }
        if PostgresURL.isPostgres(settings.storePath) { return settings.port == 0 ? nil : "signalbox-index-\(settings.port)" }
        return settings.storePath + ".index"
    }

    /// Takes `directory` (created if needed); nil when it cannot be made or another process holds it.
    init?(directory: String, baseDigest: String = "", logger: Logger) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            logger.warning("persisted indexes off: cannot make their directory", metadata: ["directory": "\(directory)", "error": "\(error)"])
            return nil
        }
        let descriptor = open(directory + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0, Self.lock(descriptor) else {
            if descriptor >= 0 { close(descriptor) }
            logger.warning(
                "persisted indexes off: their directory is in use by another process (give each its own index.directory)",
                metadata: ["directory": "\(directory)"])
            return nil
        }
        self.directory = directory
        self.baseDigest = baseDigest
        self.logger = logger
        lockDescriptor = Locked(descriptor)
    }

    deinit {
        release()
    }

    /// How long a start waits for another holder of the directory's lock to let go: a process
    /// being replaced on the same volume, or a child forked by this one between its fork and its
    /// exec (the lock's descriptor is closed on exec). Seen in tests that restart a service in
    /// one process while others spawn children. Call off the pool.
    static let lockWait = Duration.seconds(2)

    private static func lock(_ descriptor: Int32) -> Bool {
        let deadline = ContinuousClock.now + lockWait
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK, ContinuousClock.now < deadline else { return false }
            usleep(10_000)
        }
        return true
    }

    /// Lets another process (or a restarted service) take the directory; nothing is saved after.
    func release() {
        lockDescriptor.withLock { descriptor in
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }
    }

    private func folder(_ collection: String) -> String { directory + "/" + collection }

    /// The collections with a folder in ``directory``.
    private func collectionFolders() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { CollectionSchema.isValidCollectionName($0) }
    }

    /// Runs `work` on `collection`'s folder and logs "collection index `done`" with what it
    /// returns and how long it took, or "collection index `failed`" with its error.
    private func logged(_ collection: String, done: String, failed: String, _ work: () throws -> Logger.Metadata) {
        let started = ContinuousClock.now
        do {
            var metadata = try work()
            metadata["collection"] = "\(collection)"
            metadata["took"] = "\(ContinuousClock.now - started)"
            logger.info("collection index \(done)", metadata: metadata)
        } catch {
            logger.warning("collection index \(failed)", metadata: ["collection": "\(collection)", "error": "\(error)"])
        }
    }

    /// The mark saved with `collection`'s index, if it names that index's `sequence`.
    private func readMark(_ collection: String, sequence: Int64) -> IndexMark? {
        guard let data = FileManager.default.contents(atPath: folder(collection) + "/" + Self.markName),
            let mark = try? JSONDecoder().decode(IndexMark.self, from: data), mark.sequence == sequence
        else { return nil }
        return mark
    }

    /// Writes `mark` beside `collection`'s manifest, atomically (a `.partial` file a crash
    /// leaves is removed by the next save); a mark not written only means a rebuild at the next start.
    private func writeMark(_ mark: IndexMark, _ collection: String) {
        let path = folder(collection) + "/" + Self.markName
        do {
            try JSONEncoder().encode(mark).write(to: URL(fileURLWithPath: path + ".partial"))
            guard rename(path + ".partial", path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            logger.warning("collection index mark not saved", metadata: ["collection": "\(collection)", "error": "\(error)"])
        }
    }

    /// What the built-in cities' saved index is marked with, in a store of `epoch`.
    func citiesEpoch(_ epoch: String) -> String { epoch + "/" + baseDigest }

    /// Every collection's saved index that loads; those that do not are logged (and rebuilt by the
    /// caller). Its segments are read by a `concurrentPerform`: call it off the pool (a thread of its own).
    func loadAll() -> [String: Loaded] {
        var loaded: [String: Loaded] = [:]
        for name in collectionFolders().sorted() {
            logged(name, done: "loaded", failed: "not loaded: it is rebuilt from the store") { () throws -> Logger.Metadata in
                let (index, epoch) = try CollectionIndex.restore(from: folder(name))
                let mark = readMark(name, sequence: index.sequence)
                loaded[name] = Loaded(index: index, epoch: epoch, mark: mark)
                saved.withLock { $0[name] = (ObjectIdentifier(index), index.revision) }
                return ["documents": "\(index.count)", "sequence": "\(index.sequence)", "marked": "\(mark != nil)"]
            }
        }
        return loaded
    }

    /// Saves, in the background, every collection whose index changed since its folder was
    /// written; `done` runs after.
    func saveChanged(
        _ collections: @escaping @Sendable () -> [ServedCollection], epoch: String, marking: (any IndexMarking)? = nil,
        done: (@Sendable () -> Void)? = nil
    ) {
        saving.async { [self] in
            saveNow(collections(), epoch: epoch, marking: marking)
            done?()
        }
    }

    /// Saves, in the background, every collection whose index changed but not since the previous
    /// call (``quietCheckInterval`` apart): an import's index is saved, and its bodies leave the
    /// heap for their files, a second or two after its last write, not up to
    /// `index.saveInterval` later; a collection still being written waits for that. Once every
    /// collection is quiet after a change, the heap is trimmed (`HeapTrim`): what the writes'
    /// builds and merges freed goes back to the system. Not while writes go on: `malloc_trim`
    /// holds each arena's lock while it walks it (a trim after every merge raised the p50 of
    /// PUTs during an import).
    func saveQuiet(
        _ collections: @escaping @Sendable () -> [ServedCollection], epoch: String, marking: (any IndexMarking)? = nil
    ) {
        saving.async { [self] in
            let all = collections()
            let (quiet, trim) = quietCollections.check(all)
            saveNow(all, epoch: epoch, marking: marking, only: quiet)
            if trim { HeapTrim.release() }
        }
    }

    /// `saveChanged`, returning once done (at shutdown).
    func saveChanged(
        _ collections: @escaping @Sendable () -> [ServedCollection], epoch: String, marking: (any IndexMarking)? = nil
    ) async {
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            saveChanged(collections, epoch: epoch, marking: marking) { finished.resume() }
        }
    }

    /// Returns once the saves asked for so far are done.
    func waitForSaves() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            saving.async { done.resume() }
        }
    }

    /// On the saving queue: saves what changed (of those in `only`, if given; each with its
    /// ``IndexMark`` when `marking` gives one), removes the folders of collections gone.
    private func saveNow(
        _ collections: [ServedCollection], epoch: String, marking: (any IndexMarking)?, only: Set<String>? = nil
    ) {
        guard lockDescriptor.withLock({ $0 >= 0 }) else { return }
        var served = Set<String>()
        for collection in collections {
            served.insert(collection.name)
            if let only, !only.contains(collection.name) { continue }
            // A schema's index being built: the serving one is under the old schema; saved once it takes over.
            guard !collection.isRebuilding else { continue }
            let index = collection.index
            let current = (index: ObjectIdentifier(index), version: index.revision)
            guard saved.withLock({ $0[collection.name].map { $0 != current } ?? true }) else { continue }
            logged(collection.name, done: "saved", failed: "not saved") { () throws -> Logger.Metadata in
                // The old mark goes first: a crash after the new manifest must not leave it naming that one.
                unlink(folder(collection.name) + "/" + Self.markName)
                let position = marking?.markPosition()
                // Current at the served head (it has every change of its collection up to it), not
                // at its own last change: the replica remembers the changes of the head's last
                // moments (ChangeApplier.checkedChanges), not of a quiet collection's last write.
                if let position { index.advance(to: position.served) }
                let result = try index.save(to: folder(collection.name), epoch: collection.isBuiltIn ? citiesEpoch(epoch) : epoch)
                if let marking, let position, let mark = marking.mark(at: result.sequence, since: position) {
                    writeMark(mark, collection.name)
                }
                saved.withLock { $0[collection.name] = current }
                return [
                    "sequence": "\(result.sequence)", "segments_written": "\(result.segmentsWritten)", "bytes_written": "\(result.bytesWritten)",
                ]
            }
        }
        for name in collectionFolders() where !served.contains(name) {
            try? FileManager.default.removeItem(atPath: folder(name))
            _ = saved.withLock { $0.removeValue(forKey: name) }
        }
    }
}
