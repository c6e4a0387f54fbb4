import Base
import Foundation
import Synchronization

/// Process-wide hooks, as RxSwift's `Hooks`.
public enum Hooks {
    /// Handles an error no subscriber handles: `(subscription call stack, error)`.
    public typealias DefaultErrorHandler = (_ subscriptionCallStack: [String], _ error: Error) -> Void
    /// Captures the call stack of a subscription (for `defaultErrorHandler`).
    public typealias CustomCaptureSubscriptionCallstack = () -> [String]

    private struct State {
        var defaultErrorHandler: DefaultErrorHandler = { subscriptionCallStack, error in
            // Unlike RxSwift (debug builds only), release builds report too: on a server an
            // unhandled error must reach the log, not vanish.
            var message = "Unhandled error happened: \(error)\n"
            if !subscriptionCallStack.isEmpty {
                message += "subscription called from:\n\(subscriptionCallStack.joined(separator: "\n"))\n"
            }
            FileHandle.standardError.write(Data(message.utf8))
        }
        var customCaptureSubscriptionCallstack: CustomCaptureSubscriptionCallstack = {
            #if DEBUG
            return Thread.callStackSymbols
            #else
            return []
            #endif
        }
    }

    private static let state = Locked(State())
    // Atomic: read at every subscription without a handler for errors.
    private static let recordsCallStack = Atomic<Bool>(false)

    /// Called for an error that reaches a `subscribe` without an error handler
    /// (`subscribe(onNext:)`, a `Single` subscribed without `onFailure`, ...).
    public static var defaultErrorHandler: DefaultErrorHandler {
        get { state.withLock { $0.defaultErrorHandler } }
        set { state.withLock { $0.defaultErrorHandler = newValue } }
    }

    /// Captures a subscription's call stack when `recordCallStackOnError` is on.
    public static var customCaptureSubscriptionCallstack: CustomCaptureSubscriptionCallstack {
        get { state.withLock { $0.customCaptureSubscriptionCallstack } }
        set { state.withLock { $0.customCaptureSubscriptionCallstack = newValue } }
    }

    /// Whether subscriptions record their call stack for `defaultErrorHandler` (costly; off by default).
    public static var recordCallStackOnError: Bool {
        get { recordsCallStack.load(ordering: .relaxed) }
        set { recordsCallStack.store(newValue, ordering: .relaxed) }
    }

    /// The call stack to hand `defaultErrorHandler` later, if recording is on.
    static func captureSubscriptionCallStack() -> [String] {
        recordCallStackOnError ? customCaptureSubscriptionCallstack() : []
    }

    /// Reports an unhandled `error`.
    static func reportUnhandled(_ error: Error, callStack: [String]) {
        defaultErrorHandler(callStack, error)
    }
}
