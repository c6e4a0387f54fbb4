import Rx
import XCTest

// RxTest's assertion helpers and trait-event equality.

/// Asserts that `stream` holds exactly `elements` as its `next` events, in order
/// (terminal events are not compared).
public func XCTAssertRecordedElements<T: Equatable>(_ stream: [Recorded<Event<T>>], _ elements: [T], file: StaticString = #filePath, line: UInt = #line) {
    let streamElements = stream.compactMap { $0.value.element }
    XCTAssertEqual(streamElements, elements, file: file, line: line)
}

/// Compares two event arrays, showing both on failure.
public func XCTAssertEqual<T: Equatable>(_ lhs: [Event<T>], _ rhs: [Event<T>], file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertTrue(lhs == rhs, "Events differ:\nlhs: \(lhs)\nrhs: \(rhs)", file: file, line: line)
}

/// Compares two `SingleEvent` arrays (errors by description, as `Event` does).
public func XCTAssertEqual<T: Equatable>(_ lhs: [SingleEvent<T>], _ rhs: [SingleEvent<T>], file: StaticString = #filePath, line: UInt = #line) {
    let equal = lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { singleEventsEqual($0, $1) }
    XCTAssertTrue(equal, "Events differ:\nlhs: \(lhs)\nrhs: \(rhs)", file: file, line: line)
}

/// Compares two `MaybeEvent` arrays.
public func XCTAssertEqual<T: Equatable>(_ lhs: [MaybeEvent<T>], _ rhs: [MaybeEvent<T>], file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertTrue(lhs == rhs, "Events differ:\nlhs: \(lhs)\nrhs: \(rhs)", file: file, line: line)
}

/// Compares two `CompletableEvent` arrays.
public func XCTAssertEqual(_ lhs: [CompletableEvent], _ rhs: [CompletableEvent], file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertTrue(lhs == rhs, "Events differ:\nlhs: \(lhs)\nrhs: \(rhs)", file: file, line: line)
}

/// `SingleEvent`s are equal when both succeed with equal elements, or both fail with
/// errors of the same description.
public func == <T: Equatable>(lhs: SingleEvent<T>, rhs: SingleEvent<T>) -> Bool {
    singleEventsEqual(lhs, rhs)
}

private func singleEventsEqual<T: Equatable>(_ lhs: SingleEvent<T>, _ rhs: SingleEvent<T>) -> Bool {
    switch (lhs, rhs) {
    case let (.success(l), .success(r)): return l == r
    case let (.failure(l), .failure(r)): return String(describing: l) == String(describing: r)
    default: return false
    }
}

extension MaybeEvent: Equatable where Element: Equatable {
    /// Equal successes, both completed, or errors of the same description.
    public static func == (lhs: MaybeEvent<Element>, rhs: MaybeEvent<Element>) -> Bool {
        switch (lhs, rhs) {
        case let (.success(l), .success(r)): return l == r
        case (.completed, .completed): return true
        case let (.error(l), .error(r)): return String(describing: l) == String(describing: r)
        default: return false
        }
    }
}

extension CompletableEvent: Equatable {
    /// Both completed, or errors of the same description.
    public static func == (lhs: CompletableEvent, rhs: CompletableEvent) -> Bool {
        switch (lhs, rhs) {
        case (.completed, .completed): return true
        case let (.error(l), .error(r)): return String(describing: l) == String(describing: r)
        default: return false
        }
    }
}
