import Rx

extension Recorded {
    /// Factory method for an `.next` event recorded at a given time with a given value.
    public static func next<T>(_ time: TestTime, _ element: T) -> Recorded<Value> where Value == Event<T> {
        Recorded(time: time, value: .next(element))
    }

    /// Factory method for an `.completed` event recorded at a given time.
    public static func completed<T>(_ time: TestTime, _ type: T.Type = T.self) -> Recorded<Value> where Value == Event<T> {
        Recorded(time: time, value: .completed)
    }

    /// Factory method for an `.error` event recorded at a given time with a given error.
    public static func error<T>(_ time: TestTime, _ error: Swift.Error, _ type: T.Type = T.self) -> Recorded<Value> where Value == Event<T> {
        Recorded(time: time, value: .error(error))
    }

    /// Convenience method for recording a sequence of events.
    public static func events<T>(_ recordedEvents: Recorded<Event<T>>...) -> [Recorded<Value>] where Value == Event<T> {
        recordedEvents
    }

    /// Convenience method for recording a sequence of events.
    public static func events<T>(_ recordedEvents: [Recorded<Event<T>>]) -> [Recorded<Value>] where Value == Event<T> {
        recordedEvents
    }
}
