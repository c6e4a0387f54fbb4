// `try await single.value` and friends (RxSwift 6.5). Cancelling the awaiting task
// disposes the subscription and throws `CancellationError`.

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// The element of the `Single`; throws its error.
    public var value: Element {
        get async throws {
            let source = primitiveSequence.asObservable()
            return try await AwaitedSubscription<Element>.value { awaited in
                source.subscribe(
                    onNext: { awaited.resume(.success($0)) },
                    onError: { awaited.resume(.failure($0)) }
                )
            }
        }
    }
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// The element of the `Maybe`, or `nil` when it completes empty; throws its error.
    public var value: Element? {
        get async throws {
            let source = primitiveSequence.asObservable()
            return try await AwaitedSubscription<Element?>.value { awaited in
                source.subscribe(
                    onNext: { awaited.resume(.success($0)) },
                    onError: { awaited.resume(.failure($0)) },
                    onCompleted: { awaited.resume(.success(nil)) }
                )
            }
        }
    }
}

extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Never {
    /// Returns when the `Completable` completes; throws its error.
    public var value: Void {
        get async throws {
            let source = primitiveSequence.asObservable()
            return try await AwaitedSubscription<Void>.value { awaited in
                source.subscribe(
                    onError: { awaited.resume(.failure($0)) },
                    onCompleted: { awaited.resume(.success(())) }
                )
            }
        }
    }
}
