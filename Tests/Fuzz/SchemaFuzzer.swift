// libFuzzer entry point for the collection schema decoder, built by `scripts/fuzz schema` (not by
// SwiftPM).
//
// Each input is decoded as the body of `PUT /collections/{name}`. Every outcome must be a schema
// or a `SchemaError`, never a trap. The fuzzer stops with a crash when an accepted schema does not
// validate, or when its JSON (what `GET /collections` shows) does not decode to the same schema.
// It also checks that the collection name rule accepts only `[a-z0-9][a-z0-9_-]{0,63}`.

@testable import Search

@_cdecl("LLVMFuzzerTestOneInput")
public func schemaFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let schema = try? CollectionSchema.decode(json: bytes) {
        do {
            try schema.validate()
        } catch {
            fatalError("a decoded schema does not validate: \(error) \(schema)")
        }
        let json = schema.encodedJSON()
        guard let again = try? CollectionSchema.decode(json: json) else {
            fatalError("a schema's JSON does not decode: \(String(decoding: json, as: UTF8.self))")
        }
        if again != schema { fatalError("a schema's JSON decodes to another schema: \(schema) vs \(again)") }
    }
    let name = String(decoding: bytes.prefix(80), as: UTF8.self)
    let valid = CollectionSchema.isValidCollectionName(name)
    let expected = name.utf8.count >= 1 && name.utf8.count <= 64
        && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2D }
        && name.utf8.first != 0x5F && name.utf8.first != 0x2D
    if valid != expected { fatalError("collection name \(name.debugDescription): \(valid)") }
    return 0
}
