import Synchronization

extension ObservableType {
    /// Concatenates the second observable sequence to `self` upon successful termination of `self`.
    public func concat<Source: ObservableConvertibleType>(_ second: Source) -> Observable<Element> where Source.Element == Element {
        Observable.concat([asObservable(), second.asObservable()])
    }

    /// Concatenates all observable sequences in the given sequence, as long as the previous observable sequence terminated successfully.
    public static func concat<Sequence: Swift.Sequence>(_ sequence: Sequence) -> Observable<Element> where Sequence.Element == Observable<Element> {
        Concat(sources: Array(sequence))
    }

    /// Concatenates all observable sequences in the given collection, as long as the previous observable sequence terminated successfully.
    public static func concat<Collection: Swift.Collection>(_ collection: Collection) -> Observable<Element> where Collection.Element == Observable<Element> {
        Concat(sources: Array(collection))
    }

    /// Concatenates all observable sequences, as long as the previous observable sequence terminated successfully.
    public static func concat(_ sources: Observable<Element> ...) -> Observable<Element> {
        Concat(sources: sources)
    }
}

/// Subscribes the sources one after another. Synchronous completions are handled
/// in a loop (work-in-progress counter) rather than by recursion.
final private class ConcatSink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    private let sources: [Observable<Element>]
    private var index = 0
    private let wip = Atomic<Int>(0)
    private let current = SerialDisposable()

    init(sources: [Observable<Element>], observer: Observer, cancel: Cancelable) {
        self.sources = sources
        super.init(observer: observer, cancel: cancel)
    }

    func run() -> Disposable {
        subscribeNext()
        return current
    }

    private func subscribeNext() {
        if wip.add(1, ordering: .acquiringAndReleasing).oldValue != 0 { return }
        repeat {
            if isDisposed { return }
            if index >= sources.count {
                forwardOn(.completed)
                dispose()
                return
            }
            let source = sources[index]
            index += 1
            let subscription = SingleAssignmentDisposable()
            current.disposable = subscription
            subscription.setDisposable(source.subscribe(self))
        } while wip.subtract(1, ordering: .acquiringAndReleasing).newValue != 0
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            forwardOn(event)
        case .error:
            forwardOn(event)
            dispose()
        case .completed:
            subscribeNext()
        }
    }
}

final private class Concat<Element>: Producer<Element>, @unchecked Sendable {
    private let sources: [Observable<Element>]

    init(sources: [Observable<Element>]) {
        self.sources = sources
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = ConcatSink(sources: sources, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}
