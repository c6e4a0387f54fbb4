import Foundation

extension ObservableType {
    /// Prints every subscription, event and disposal, each line stamped with the time and
    /// `identifier` (default: the call site), as RxSwift does.
    ///
    /// - parameter identifier: Names the lines; nil for the call site (`file:line (function)`).
    /// - parameter trimOutput: Shortens long event descriptions to 40 characters.
    /// - parameter file: The call site's file, for the default identifier.
    /// - parameter line: The call site's line, for the default identifier.
    /// - parameter function: The call site's function, for the default identifier.
    public func debug(_ identifier: String? = nil, trimOutput: Bool = false, file: String = #file, line: UInt = #line, function: String = #function) -> Observable<Element> {
        let identifier = identifier ?? "\(file.split(separator: "/").last ?? ""):\(line) (\(function))"
        return Debug(source: asObservable(), identifier: identifier, trimOutput: trimOutput)
    }
}

private let maxEventTextLength = 40

private func debugTimestamp() -> String {
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
    formatter.locale = Locale(identifier: "en_US_POSIX")
    return formatter.string(from: Date())
}

private func logEvent(_ identifier: String, content: String) {
    print("\(debugTimestamp()): \(identifier) -> \(content)")
}

final private class DebugSink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    private let identifier: String
    private let trimOutput: Bool

    init(identifier: String, trimOutput: Bool, observer: Observer, cancel: Cancelable) {
        self.identifier = identifier
        self.trimOutput = trimOutput
        super.init(observer: observer, cancel: cancel)
        logEvent(identifier, content: "subscribed")
    }

    func on(_ event: Event<Element>) {
        let eventText = "\(event)"
        let shown = trimOutput && eventText.count > maxEventTextLength
            ? String(eventText.prefix(maxEventTextLength / 2 - 2)) + "..." + String(eventText.suffix(maxEventTextLength / 2 - 1))
            : eventText
        logEvent(identifier, content: "Event \(shown)")
        forwardOn(event)
        if event.isStopEvent {
            dispose()
        }
    }

    override func dispose() {
        if !isDisposed {
            logEvent(identifier, content: "isDisposed")
        }
        super.dispose()
    }
}

final private class Debug<Element>: Producer<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let identifier: String
    private let trimOutput: Bool

    init(source: Observable<Element>, identifier: String, trimOutput: Bool) {
        self.source = source
        self.identifier = identifier
        self.trimOutput = trimOutput
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = DebugSink(identifier: identifier, trimOutput: trimOutput, observer: observer, cancel: cancel)
        return (sink: sink, subscription: source.subscribe(sink))
    }
}
