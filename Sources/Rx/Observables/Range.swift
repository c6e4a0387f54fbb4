/// Integer types usable with `range`, `interval` and `timer`.
public typealias RxAbstractInteger = FixedWidthInteger

extension ObservableType where Element: RxAbstractInteger {
    /// Generates an observable sequence of integral numbers within a specified range.
    public static func range(start: Element, count: Element, scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance) -> Observable<Element> {
        precondition(count >= 0, "count can't be negative")
        precondition(start &+ (count - 1) >= start || count == 0, "overflow of count")
        return ObservableSequence(elements: RangeSequence(start: start, count: count), scheduler: scheduler)
    }
}

/// `start ..< start + count` without forming the (possibly overflowing) upper bound.
private struct RangeSequence<Element: RxAbstractInteger>: Sequence, IteratorProtocol {
    var next_: Element
    var remaining: Element

    init(start: Element, count: Element) {
        next_ = start
        remaining = count
    }

    mutating func next() -> Element? {
        guard remaining > 0 else { return nil }
        let value = next_
        remaining -= 1
        if remaining > 0 { next_ += 1 }
        return value
    }
}

extension ObservableType {
    /// Generates an observable sequence that repeats the given element infinitely.
    public static func repeatElement(_ element: Element, scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance) -> Observable<Element> {
        ObservableSequence(elements: Swift.repeatElement(element, count: Int.max), scheduler: scheduler)
    }
}
