extension ObservableType {
    /// Converts the elements to an observable sequence, sent on `scheduler`.
    public static func of(_ elements: Element ..., scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance) -> Observable<Element> {
        ObservableSequence(elements: elements, scheduler: scheduler)
    }

    /// Converts an array to an observable sequence.
    public static func from(_ array: [Element], scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance) -> Observable<Element> {
        ObservableSequence(elements: array, scheduler: scheduler)
    }

    /// Converts a sequence to an observable sequence.
    public static func from<Source: Sequence>(_ sequence: Source, scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance) -> Observable<Element> where Source.Element == Element {
        ObservableSequence(elements: sequence, scheduler: scheduler)
    }

    /// Converts an optional to an observable sequence: one element, or empty for `nil`.
    public static func from(optional: Element?) -> Observable<Element> {
        if let optional { return .just(optional) }
        return .empty()
    }
}

final private class ObservableSequenceSink<Source: Sequence, Observer: ObserverType>: Sink<Observer>, @unchecked Sendable where Source.Element == Observer.Element  {
    typealias Parent = ObservableSequence<Source>

    func run(_ parent: Parent) -> Disposable {
        parent.scheduler.scheduleRecursive(parent.elements.makeIterator()) { iterator, recurse in
            var mutableIterator = iterator
            if let next = mutableIterator.next() {
                self.forwardOn(.next(next))
                recurse(mutableIterator)
            } else {
                self.forwardOn(.completed)
                self.dispose()
            }
        }
    }
}

final class ObservableSequence<Source: Sequence>: Producer<Source.Element>, @unchecked Sendable {
    let elements: Source
    let scheduler: ImmediateSchedulerType

    init(elements: Source, scheduler: ImmediateSchedulerType) {
        self.elements = elements
        self.scheduler = scheduler
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = ObservableSequenceSink<Source, Observer>(observer: observer, cancel: cancel)
        let subscription = sink.run(self)
        return (sink: sink, subscription: subscription)
    }
}
