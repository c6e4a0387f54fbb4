import Foundation

/// Runs `work` on a thread of its own and returns what it returns, keeping Swift's two shared
/// task threads free: minutes of a debug build's CPU there (or a wait on a gate) starved the
/// server tests running beside it past their one-minute time limits (27 Nov).
func offThePool<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
