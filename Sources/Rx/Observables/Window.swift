extension ObservableType {
    /// Windows (observable sequences) of the elements of each `timeSpan`, or of each
    /// `count` elements, whichever fills first. The first window opens at subscription.
    /// The source stays subscribed while the outer sequence or any window is subscribed.
    public func window(timeSpan: RxTimeInterval, count: Int, scheduler: SchedulerType) -> Observable<Observable<Element>> {
        WindowTimeCount(source: asObservable(), timeSpan: timeSpan, count: count, scheduler: scheduler)
    }
}

final private class WindowTimeCountSink<Element, Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable
where Observer.Element == Observable<Element> {
    private let parent: WindowTimeCount<Element>
    private let lock = RecursiveLock()
    private var subject = PublishSubject<Element>()
    private var count = 0
    private var windowID = 0
    private let timerDisposable = SerialDisposable()
    private let groupDisposable = CompositeDisposable()
    private let refCountDisposable: RefCountDisposable

    init(parent: WindowTimeCount<Element>, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        refCountDisposable = RefCountDisposable(disposable: groupDisposable)
        _ = groupDisposable.insert(timerDisposable)
        super.init(observer: observer, cancel: cancel)
    }

    func run() -> Disposable {
        forwardOn(.next(AddRef(source: subject.asObservable(), refCount: refCountDisposable)))
        createTimer(windowID)
        _ = groupDisposable.insert(parent.source.subscribe(self))
        return refCountDisposable
    }

    /// Under `lock`: completes the current window and opens a new one.
    private func startNewWindowAndCompleteCurrentOne() {
        subject.on(.completed)
        subject = PublishSubject()
        forwardOn(.next(AddRef(source: subject.asObservable(), refCount: refCountDisposable)))
    }

    func on(_ event: Event<Element>) {
        lock.performLocked {
            var startNew = false
            var newID = 0
            switch event {
            case .next(let element):
                subject.on(.next(element))
                count += 1
                if count == parent.count {
                    startNew = true
                    count = 0
                    windowID = windowID &+ 1
                    newID = windowID
                    startNewWindowAndCompleteCurrentOne()
                }
            case .error(let error):
                subject.on(.error(error))
                forwardOn(.error(error))
                dispose()
            case .completed:
                subject.on(.completed)
                forwardOn(.completed)
                dispose()
            }
            if startNew {
                createTimer(newID)
            }
        }
    }

    private func createTimer(_ windowID: Int) {
        if timerDisposable.isDisposed { return }
        if self.windowID != windowID { return }
        let next = SingleAssignmentDisposable()
        timerDisposable.disposable = next
        next.setDisposable(parent.scheduler.scheduleRelative(windowID, dueTime: parent.timeSpan) { previousWindowID in
            var newID = 0
            self.lock.performLocked {
                if previousWindowID != self.windowID { return }
                self.count = 0
                self.windowID = self.windowID &+ 1
                newID = self.windowID
                self.startNewWindowAndCompleteCurrentOne()
            }
            self.createTimer(newID)
            return Disposables.create()
        })
    }
}

final private class WindowTimeCount<Element>: Producer<Observable<Element>>, @unchecked Sendable {
    let source: Observable<Element>
    let timeSpan: RxTimeInterval
    let count: Int
    let scheduler: SchedulerType

    init(source: Observable<Element>, timeSpan: RxTimeInterval, count: Int, scheduler: SchedulerType) {
        self.source = source
        self.timeSpan = timeSpan
        self.count = count
        self.scheduler = scheduler
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Observable<Element> {
        let sink = WindowTimeCountSink(parent: self, observer: observer, cancel: cancel)
        return (sink: sink, subscription: sink.run())
    }
}
