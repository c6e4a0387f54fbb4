import Synchronization

/// Resource accounting, as RxSwift's `Resources` (there behind `TRACE_RESOURCES`).
///
/// Sinks, disposables, observables and subjects increment `total` when created and
/// decrement it when released, so a test can check that a scenario leaves nothing
/// behind. Counting is on in debug builds (`DEBUG`) and in builds defining
/// `TRACE_RESOURCES`; in other builds `total` stays 0 and counting costs nothing.
public enum Resources {
    static let counter = Atomic<Int32>(0)

    /// Number of live Rx resources (debug builds only; 0 otherwise).
    public static var total: Int32 { counter.load(ordering: .relaxed) }

    /// Counts one more live resource. For types outside the module that hold subscriptions.
    @inline(__always)
    public static func incrementTotal() {
        #if DEBUG || TRACE_RESOURCES
        counter.add(1, ordering: .relaxed)
        #endif
    }

    /// Counts one less live resource.
    @inline(__always)
    public static func decrementTotal() {
        #if DEBUG || TRACE_RESOURCES
        counter.subtract(1, ordering: .relaxed)
        #endif
    }
}

func rxAbstractMethod(file: StaticString = #file, line: UInt = #line) -> Never {
    fatalError("Abstract method", file: file, line: line)
}

func rxFatalError(_ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) -> Never {
    fatalError(message(), file: file, line: line)
}

/// Moves a value that is not `Sendable` into a `@Sendable` closure (a Dispatch block).
/// Used only where the Rx contract already serializes access to the value: the
/// scheduler runs the action once, and the action's state is handed over, not shared.
struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Stops a debug build with `message`; release builds carry on (RxSwift's `rxFatalErrorInDebug`).
func rxFatalErrorInDebug(_ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    #if DEBUG
    fatalError(message(), file: file, line: line)
    #else
    print("\(file):\(line): \(message())")
    #endif
}
