import Base
import Search

/// The base data set every replica loads before the store's writes: the embedded
/// GeoNames cities or a `--data` file, with a digest of its bytes. A cluster keeps
/// the digest of its first replica and refuses replicas that load something else.
struct BaseData: Sendable {
    let documents: [Document]
    /// FNV-1a 64 of the (decompressed) file, in hex; empty unless asked for (only a cluster compares it).
    let digest: String

    static func load(path: String?, withDigest: Bool) throws -> BaseData {
        guard let path = path ?? DefaultDataSet.path else {
            throw DocumentLoaderError.unreadable(path: DefaultDataSet.resourceName, reason: "resource missing from the Search bundle")
        }
        let format: DocumentLoader.Format? = path == DefaultDataSet.path ? .citiesTSV : DocumentLoader.Format(path: path)
        guard let format else { throw DocumentLoaderError.unknownFormat(path: path) }
        let bytes = try FileReader.read(path: path)
        var digest = ""
        if withDigest {
            var hasher = FNV1a()
            hasher.combine(bytes)
            digest = String(hasher.value, radix: 16)
        }
        let documents = try DocumentLoader.load(bytes: bytes, format: format, source: path)
        return BaseData(documents: documents, digest: digest)
    }
}
