import Foundation
import Testing
@testable import Signalbox

/// What a commit's NOTIFY carries (``ChangeNotification``): written as the store writes it, read
/// back as the follower reads it, and refused whole when it is not one of ours.
struct ChangeNotificationTests {
    @Test func aCommitsChangesComeBackNumberedUpToTheHead() throws {
        let tail = ChangeNotification.tail(for: [
            (.document, "cities", "a", #"{"id":"a","name":"Å, b:1"}"#),
            (.document, "shop", "b é", nil),
            (.schema, "shop", "", #"{"fields":[]}"#),
        ], origin: "r2d2")
        let read = try #require(ChangeNotification(payload: "42" + tail))
        #expect(read.head == 42 && read.count == 3 && read.isComplete && read.origin == "r2d2")
        #expect(read.changes == [
            StoredChange(collection: "cities", id: "a", body: Data(#"{"id":"a","name":"Å, b:1"}"#.utf8), sequence: 40),
            StoredChange(collection: "shop", id: "b é", body: nil, sequence: 41),
            StoredChange(collection: "shop", kind: .schema, id: "", body: Data(#"{"fields":[]}"#.utf8), sequence: 42),
        ])
    }

    /// What replicas before the payloads send: the head alone, nothing carried.
    @Test func theHeadAloneCarriesNothing() throws {
        let read = try #require(ChangeNotification(payload: "7"))
        #expect(read == ChangeNotification(head: 7, count: 0, changes: [], origin: ""))
        #expect(!read.isComplete)
    }

    /// PostgreSQL refuses a payload of 8,000 bytes: a commit carries the changes that fit, from
    /// its first, and says how many it made; one whose first change does not fit carries none
    /// (and still names its origin).
    @Test func aLargeCommitCarriesTheChangesThatFitFromItsFirst() throws {
        let body = String(repeating: "x", count: 3_000)
        let tail = ChangeNotification.tail(for: (1...4).map { (.document, "cities", "d\($0)", body) }, origin: "a1")
        #expect(("100" + tail).utf8.count < 8_000)
        let read = try #require(ChangeNotification(payload: "100" + tail))
        #expect(read.count == 4 && read.changes.map(\.sequence) == [97, 98] && !read.isComplete)
        let none = try #require(ChangeNotification(
            payload: "9" + ChangeNotification.tail(for: [(.document, "cities", "big", String(repeating: "y", count: 8_000))], origin: "a1")))
        #expect(none == ChangeNotification(head: 9, count: 1, changes: [], origin: "a1"))
        #expect(!none.isComplete)
    }

    @Test func aPayloadThatIsNotOursIsRefused() {
        let refused = [
            "", "x", "12x", "12 ", "-3", "5 1 1", "5 1 1 O", "5 1 1  d,6,1,-1:citiesa", "5 2 3 o d,6,1,-1:citiesa",
            "5 1 1 o d,6,1,-1:cities", "5 1 1 o d,6,1,-1:citiesab", "5 1 1 o q,6,1,-1:citiesa", "5 1 1 o d,6,1,-2:citiesa",
            "5 1 1 o d,6,1,9:citiesa{}", "1 3 1 o d,6,1,-1:citiesa", "5 1 1 o d,99999999999999999999,1,-1:citiesa",
        ]
        for payload in refused {
            #expect(ChangeNotification(payload: payload) == nil, "\(payload)")
        }
        #expect(ChangeNotification(payload: "5 1 1 o d,6,1,-1:citiesa") != nil)
        #expect(ChangeNotification(payload: "5 1 0 o") != nil)
    }
}
