import Rx

/// The traits of `PrimitiveSequence` a handler may return; each says how it answers.
/// (One conformance of `PrimitiveSequence` covers all three, so the trait decides.)
public protocol ResponseGeneratorTrait {
    static func reply<Element: ResponseEncodable>(_ sequence: PrimitiveSequence<Self, Element>, to request: Request) -> Reply
}

extension PrimitiveSequence: ResponseGenerator where Trait: ResponseGeneratorTrait, Element: ResponseEncodable {
    public func reply(to request: Request) -> Reply { Trait.reply(self, to: request) }
}

extension SingleTrait: ResponseGeneratorTrait {
    /// 200 with the element encoded, or the problem response for the error.
    public static func reply<Element: ResponseEncodable>(_ single: Single<Element>, to request: Request) -> Reply {
        .subscribing { sink in
            single.subscribe { event in
                switch event {
                case .success(let value): sink.respond(encoding: value)
                case .failure(let error): sink.fail(error)
                }
            }
        }
    }
}

extension MaybeTrait: ResponseGeneratorTrait {
    /// 200 with the element encoded, 404 when empty, or the problem response for the error.
    public static func reply<Element: ResponseEncodable>(_ maybe: Maybe<Element>, to request: Request) -> Reply {
        .subscribing { sink in
            maybe.subscribe { event in
                switch event {
                case .success(let value): sink.respond(encoding: value)
                case .error(let error): sink.fail(error)
                case .completed: sink.fail(HTTPError(.notFound, detail: "No resource at \(request.path)."))
                }
            }
        }
    }
}

extension CompletableTrait: ResponseGeneratorTrait {
    /// 204 on completion, or the problem response for the error.
    public static func reply<Element: ResponseEncodable>(_ completable: PrimitiveSequence<CompletableTrait, Element>, to request: Request) -> Reply {
        .subscribing { sink in
            completable.asObservable().subscribe(
                onError: { sink.fail($0) },
                onCompleted: { sink.respond(Response(status: .noContent)) }
            )
        }
    }
}

/// `Completable`'s element: never encoded, declared so a `Completable` is a `ResponseGenerator`.
extension Never: ResponseEncodable {}
