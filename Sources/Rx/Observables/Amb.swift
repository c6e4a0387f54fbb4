extension ObservableType {
    /// Mirrors whichever of `self` and `right` produces an event first; the other is disposed.
    public func amb<O2: ObservableType>(_ right: O2) -> Observable<Element> where O2.Element == Element {
        Amb(left: asObservable(), right: right.asObservable())
    }

    /// Mirrors whichever of `sequence` produces an event first; the others are disposed.
    public static func amb<Sequence: Swift.Sequence>(_ sequence: Sequence) -> Observable<Element> where Sequence.Element == Observable<Element> {
        sequence.reduce(Observable<Element>.never()) { result, next in result.amb(next) }
    }
}

private enum AmbState {
    case neither
    case left
    case right
}

final private class AmbObserver<Observer: ObserverType>: ObserverType {
    typealias Element = Observer.Element

    private let parent: AmbSink<Observer>
    private let isLeft: Bool

    init(parent: AmbSink<Observer>, isLeft: Bool) {
        self.parent = parent
        self.isLeft = isLeft
    }

    func on(_ event: Event<Element>) {
        parent.on(event, fromLeft: isLeft)
    }
}

final private class AmbSink<Observer: ObserverType>: Sink<Observer>, @unchecked Sendable {
    typealias Element = Observer.Element

    private let lock = RecursiveLock()
    private var choice = AmbState.neither
    // The sink holds only the subscriptions: the observers hold the sink.
    private let leftSubscription = SingleAssignmentDisposable()
    private let rightSubscription = SingleAssignmentDisposable()

    func run(left leftSource: Observable<Element>, right rightSource: Observable<Element>) -> Disposable {
        let disposeAll = Disposables.create(leftSubscription, rightSubscription)
        leftSubscription.setDisposable(leftSource.subscribe(AmbObserver(parent: self, isLeft: true)))
        rightSubscription.setDisposable(rightSource.subscribe(AmbObserver(parent: self, isLeft: false)))
        return disposeAll
    }

    func on(_ event: Event<Element>, fromLeft: Bool) {
        lock.performLocked {
            let side: AmbState = fromLeft ? .left : .right
            if choice == .neither {
                choice = side
                (fromLeft ? rightSubscription : leftSubscription).dispose()
            }
            guard choice == side else { return }
            forwardOn(event)
            if event.isStopEvent {
                dispose()
            }
        }
    }
}

final private class Amb<Element>: Producer<Element>, @unchecked Sendable {
    private let left: Observable<Element>
    private let right: Observable<Element>

    init(left: Observable<Element>, right: Observable<Element>) {
        self.left = left
        self.right = right
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = AmbSink(observer: observer, cancel: cancel)
        return (sink: sink, subscription: sink.run(left: left, right: right))
    }
}
