// Prints throughput figures for the Rx core. Each figure is the best of a few
// rounds (thread CPU time), next to a plain-Swift peer doing the same work, with
// their ratio. Everything runs on one thread.
import Dispatch
import Foundation
import Rx

/// Keeps results observable so the optimizer can't drop the work.
nonisolated(unsafe) var blackHole = 0

/// Hides a value from the optimizer, so peers do their work instead of being folded away.
@inline(never)
func opaque<T>(_ value: T) -> T { value }

/// A callback-based one-shot operation: the plain-Swift peer of a `Single`.
final class Operation {
    let run: (_ callback: (Int) -> Void) -> Void
    init(run: @escaping (_ callback: (Int) -> Void) -> Void) { self.run = run }
}

@inline(never)
func makeOperation(_ value: Int) -> Operation {
    Operation { callback in callback(value) }
}

/// CPU time of this thread, in seconds: on a shared 2-core machine it is steadier
/// than wall time, since time spent waiting for a core is not counted.
func threadCPUTime() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func seconds(_ body: () -> Void) -> Double {
    let start = threadCPUTime()
    body()
    return threadCPUTime() - start
}

/// Best (shortest) time of `rounds` runs.
func best(rounds: Int = 5, _ body: () -> Void) -> Double {
    var bestTime = Double.infinity
    for _ in 0 ..< rounds {
        bestTime = min(bestTime, seconds(body))
    }
    return bestTime
}

func format(_ perSecond: Double) -> String {
    if perSecond >= 1e6 { return String(format: "%.1f M/s", perSecond / 1e6) }
    if perSecond >= 1e3 { return String(format: "%.1f k/s", perSecond / 1e3) }
    return String(format: "%.0f /s", perSecond)
}

func report(_ name: String, count: Int, rx: Double, peer: Double, peerName: String) {
    let rxRate = Double(count) / rx
    let peerRate = Double(count) / peer
    print("\(name)")
    print("  Rx:   \(format(rxRate))")
    print("  peer: \(format(peerRate))  (\(peerName))")
    print(String(format: "  Rx is %.1fx slower than the peer", peerRate / rxRate))
}

/// `swift run -c release RxBenchmarks map single share subjects` runs only the named parts.
let selected = Set(CommandLine.arguments.dropFirst())
func wanted(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }

// MARK: 1. map -> filter -> subscribe

if wanted("map") {
    let count = 5_000_000
    let source = Observable<Int>.create { observer in
        for i in 0 ..< count { observer.onNext(i) }
        observer.onCompleted()
        return Disposables.create()
    }
    let rx = best {
        var sum = 0
        let subscription = source
            .map { $0 &* 3 }
            .filter { $0 & 1 == 0 }
            .subscribe(onNext: { sum &+= $0 })
        subscription.dispose()
        blackHole &+= sum
    }
    let peer = best {
        var sum = 0
        let map: (Int) -> Int = opaque { $0 &* 3 }
        let filter: (Int) -> Bool = opaque { $0 & 1 == 0 }
        let onNext: (Int) -> Void = opaque { sum &+= $0 }
        for i in 0 ..< opaque(count) {
            let mapped = map(i)
            if filter(mapped) { onNext(mapped) }
        }
        blackHole &+= sum
    }
    report("events through map -> filter -> subscribe (\(count) events)", count: count, rx: rx, peer: peer, peerName: "the same closures called in a loop")
}

// MARK: 2. Single create -> subscribe -> dispose

if wanted("single") {
    let count = 1_000_000
    let rx = best {
        var sum = 0
        for i in 0 ..< count {
            let single = Single<Int>.create { observer in
                observer(.success(i))
                return Disposables.create()
            }
            let subscription = single.subscribe(onSuccess: { sum &+= $0 })
            subscription.dispose()
        }
        blackHole &+= sum
    }
    let observable = best {
        var sum = 0
        for i in 0 ..< count {
            let subscription = Observable<Int>.create { observer in
                observer.onNext(i)
                observer.onCompleted()
                return Disposables.create()
            }.subscribe(onNext: { sum &+= $0 })
            subscription.dispose()
        }
        blackHole &+= sum
    }
    let peer = best {
        var sum = 0
        for i in 0 ..< count {
            // Allocate the operation, call back once, release it.
            let operation = makeOperation(i)
            operation.run { sum &+= $0 }
        }
        blackHole &+= sum
    }
    report("Single create -> subscribe -> dispose (\(count) times)", count: count, rx: rx, peer: peer, peerName: "a heap-allocated callback operation")
    print("  (Observable.create -> subscribe -> dispose: \(format(Double(count) / observable)))")
}

// MARK: 3. share fanning out to 1,000 observers

if wanted("share") {
    let observers = 1_000
    let events = 5_000
    let delivered = observers * events
    let rx = best {
        let subject = PublishSubject<Int>()
        let shared = subject.share()
        var sum = 0
        let subscriptions = (0 ..< observers).map { _ in shared.subscribe(onNext: { sum &+= $0 }) }
        for i in 0 ..< events { subject.onNext(i) }
        subscriptions.forEach { $0.dispose() }
        blackHole &+= sum
    }
    let peer = best {
        var sum = 0
        let handlers: [(Int) -> Void] = opaque((0 ..< observers).map { _ in { sum &+= $0 } })
        for i in 0 ..< opaque(events) {
            for handler in handlers { handler(i) }
        }
        blackHole &+= sum
    }
    report("share() fanning out to \(observers) observers (\(events) events, \(delivered) deliveries)", count: delivered, rx: rx, peer: peer, peerName: "an array of closures called in a loop")
}

// MARK: 4. subjects delivering to one observer

if wanted("subjects") {
    let count = 5_000_000
    /// Sends `count` elements through `subject` to one observer.
    func run<Subject: ObservableType & ObserverType>(_ subject: Subject) -> Double where Subject.Element == Int {
        best {
            var sum = 0
            let subscription = subject.subscribe(onNext: { sum &+= $0 })
            for i in 0 ..< count { subject.onNext(i) }
            subscription.dispose()
            blackHole &+= sum
        }
    }
    let publish = run(PublishSubject<Int>())
    let behavior = run(BehaviorSubject<Int>(value: 0))
    let replay = run(ReplaySubject<Int>.create(bufferSize: 1))
    let peer = best {
        var sum = 0
        let onNext: (Int) -> Void = opaque { sum &+= $0 }
        for i in 0 ..< opaque(count) { onNext(i) }
        blackHole &+= sum
    }
    report("PublishSubject.onNext to one observer (\(count) events)", count: count, rx: publish, peer: peer, peerName: "a closure called in a loop")
    print("  (BehaviorSubject: \(format(Double(count) / behavior)), ReplaySubject(bufferSize: 1): \(format(Double(count) / replay)))")
}

print("(checksum \(blackHole & 0xff))")
