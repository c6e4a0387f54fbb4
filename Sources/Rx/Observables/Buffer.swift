extension ObservableType {
    /// Arrays of the elements of each `timeSpan` window, or of each `count` elements,
    /// whichever fills first (a full buffer restarts the timer). A window without
    /// elements emits an empty array; completion emits the current buffer first.
    public func buffer(timeSpan: RxTimeInterval, count: Int, scheduler: SchedulerType) -> Observable<[Element]> {
        BufferTimeCount(source: asObservable(), timeSpan: timeSpan, count: count, scheduler: scheduler)
    }
}

final private class BufferTimeCountSink<Element, Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable
where Observer.Element == [Element] {
    private let parent: BufferTimeCount<Element>
    private let lock = RecursiveLock()
    private let timerDisposable = SerialDisposable()
    private var buffer: [Element] = []
    private var windowID = 0

    init(parent: BufferTimeCount<Element>, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(observer: observer, cancel: cancel)
    }

    func run() -> Disposable {
        createTimer(windowID)
        return Disposables.create(timerDisposable, parent.source.subscribe(self))
    }

    /// Under `lock` (or before subscription): emits the buffer and starts a new window.
    private func startNewWindowAndSendCurrent() {
        windowID = windowID &+ 1
        let windowID = self.windowID
        let current = buffer
        buffer = []
        forwardOn(.next(current))
        createTimer(windowID)
    }

    func on(_ event: Event<Element>) {
        lock.performLocked {
            switch event {
            case .next(let element):
                buffer.append(element)
                if buffer.count == parent.count {
                    startNewWindowAndSendCurrent()
                }
            case .error(let error):
                buffer = []
                forwardOn(.error(error))
                dispose()
            case .completed:
                forwardOn(.next(buffer))
                forwardOn(.completed)
                dispose()
            }
        }
    }

    private func createTimer(_ windowID: Int) {
        if timerDisposable.isDisposed { return }
        if self.windowID != windowID { return }
        let next = SingleAssignmentDisposable()
        timerDisposable.disposable = next
        next.setDisposable(parent.scheduler.scheduleRelative(windowID, dueTime: parent.timeSpan) { previousWindowID in
            self.lock.performLocked {
                if previousWindowID != self.windowID { return }
                self.startNewWindowAndSendCurrent()
            }
            return Disposables.create()
        })
    }
}

final private class BufferTimeCount<Element>: Producer<[Element]>, @unchecked Sendable {
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

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == [Element] {
        let sink = BufferTimeCountSink(parent: self, observer: observer, cancel: cancel)
        return (sink: sink, subscription: sink.run())
    }
}
