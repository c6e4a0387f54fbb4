import Synchronization

extension ObservableType {
    /// Concatenates the second observable sequence to `self` upon successful termination of `self`.
    public func concat<Source: ObservableConvertibleType>(_ second: Source) -> Observable<Element> where Source.Element == Element {
        Observable.concat([asObservable(), second.asObservable()])
    }

    /// Concatenates all observable sequences in the given sequence, as long as the previous observable sequence terminated successfully.
    ///
    /// The sequence is iterated lazily, one source at a time, so it may be infinite.
    public static func concat<Sequence: Swift.Sequence>(_ sequence: Sequence) -> Observable<Element> where Sequence.Element == Observable<Element> {
        Concat(makeSources: { AnyIterator(sequence.makeIterator()) })
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

    private var sources: AnyIterator<Observable<Element>>
    private let wip = Atomic<Int>(0)
    private let current = SerialDisposable()

    init(sources: AnyIterator<Observable<Element>>, observer: Observer, cancel: Cancelable) {
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
            guard let source = sources.next() else {
                forwardOn(.completed)
                dispose()
                return
            }
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
            // Through the trampoline, as RxSwift's tail-recursive sink: when the sources
            // complete synchronously, the next one is subscribed after the outermost
            // `subscribe` has returned, so a downstream `take` can dispose an endless concat.
            _ = CurrentThreadScheduler.instance.schedule(()) { _ in
                self.subscribeNext()
                return Disposables.create()
            }
        }
    }
}

final private class Concat<Element>: Producer<Element>, @unchecked Sendable {
    // `@unchecked`: the iterator factory is called once per subscription; it captures an
    // immutable sequence, as RxSwift's `Concat` does.
    private let makeSources: () -> AnyIterator<Observable<Element>>

    init(sources: [Observable<Element>]) {
        makeSources = { AnyIterator(sources.makeIterator()) }
    }

    init(makeSources: @escaping () -> AnyIterator<Observable<Element>>) {
        self.makeSources = makeSources
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = ConcatSink(sources: makeSources(), observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}
