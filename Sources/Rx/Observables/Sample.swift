extension ObservableType {
    /// At each tick of `sampler`, the latest element of `self` since the previous tick (or
    /// `defaultValue` if there was none and it is set).
    ///
    /// As in RxSwift, the result completes only at the first tick (or sampler completion)
    /// after `self` completed, emitting the pending element then.
    public func sample<Source: ObservableType>(_ sampler: Source, defaultValue: Element? = nil) -> Observable<Element> {
        Sample(source: asObservable(), sampler: sampler.asObservable(), defaultValue: defaultValue)
    }
}

final private class SamplerObserver<Observer: ObserverType, SampleType>: ObserverType {
    typealias Element = SampleType

    private let parent: SampleSink<Observer, SampleType>

    init(parent: SampleSink<Observer, SampleType>) {
        self.parent = parent
    }

    func on(_ event: Event<SampleType>) {
        parent.lock.performLocked {
            switch event {
            case .next, .completed:
                parent.tick()
            case .error(let error):
                parent.forwardOn(.error(error))
                parent.dispose()
            }
        }
    }
}

final private class SampleSink<Observer: ObserverType, SampleType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    let lock = RecursiveLock()
    private let defaultValue: Element?
    private var element: Element?
    private var atEnd = false
    private let sourceSubscription = SingleAssignmentDisposable()

    init(defaultValue: Element?, observer: Observer, cancel: Cancelable) {
        self.defaultValue = defaultValue
        super.init(observer: observer, cancel: cancel)
    }

    func run(source: Observable<Element>, sampler: Observable<SampleType>) -> Disposable {
        sourceSubscription.setDisposable(source.subscribe(self))
        let samplerSubscription = sampler.subscribe(SamplerObserver(parent: self))
        return Disposables.create(sourceSubscription, samplerSubscription)
    }

    /// Under `lock`: a sampler tick.
    func tick() {
        if let element {
            self.element = nil
            forwardOn(.next(element))
        } else if let defaultValue {
            forwardOn(.next(defaultValue))
        }
        if atEnd {
            forwardOn(.completed)
            dispose()
        }
    }

    func on(_ event: Event<Element>) {
        lock.performLocked {
            switch event {
            case .next(let value):
                element = value
            case .error:
                forwardOn(event)
                dispose()
            case .completed:
                atEnd = true
                sourceSubscription.dispose()
            }
        }
    }
}

final private class Sample<Element, SampleType>: Producer<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let sampler: Observable<SampleType>
    private let defaultValue: Element?

    init(source: Observable<Element>, sampler: Observable<SampleType>, defaultValue: Element?) {
        self.source = source
        self.sampler = sampler
        self.defaultValue = defaultValue
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = SampleSink<Observer, SampleType>(defaultValue: defaultValue, observer: observer, cancel: cancel)
        return (sink: sink, subscription: sink.run(source: source, sampler: sampler))
    }
}
