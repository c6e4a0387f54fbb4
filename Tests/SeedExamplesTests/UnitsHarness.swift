import Rx
import RxTest

/// The world the seeds' Units examples (`units-en.txt`, `units-ja.txt`) run in: the
/// controls they bind (stand-ins over relays), their `disposeBag`, a fake
/// `fetchAutoCompleteItems`, and a virtual clock.
///
/// The examples are methods of `UnitsHarness` (extensions in the `*Examples.swift` files),
/// with their text as in the seeds. Inside them `MainScheduler.instance` finds the property
/// `MainScheduler` below before the module's type (a member is looked up first), so the
/// examples run on the test's `TestScheduler` without a change to their text.
final class UnitsHarness {
    /// What `MainScheduler.instance` means inside the examples.
    struct VirtualMainScheduler {
        let instance: TestScheduler
    }

    /// One tick is 10 ms, so `throttle(0.3, ...)` waits 30 ticks.
    let scheduler = TestScheduler(initialClock: 0, resolution: 0.01)
    // The capital letter is the point: it shadows `Rx.MainScheduler` (see above).
    // swiftlint:disable:next identifier_name
    let MainScheduler: VirtualMainScheduler

    let query = TextInputStandIn()
    let resultCount = LabelStandIn()
    let resultsTableView = TableViewStandIn()
    /// The seeds spell the table both `resultsTableView` and `resultTableView`.
    var resultTableView: TableViewStandIn { resultsTableView }
    /// Replaced by a fresh bag to dispose the examples' bindings (RxSwift's idiom).
    var disposeBag = DisposeBag()

    /// Every request `fetchAutoCompleteItems` started: (virtual time, query).
    private(set) var requests: [Request] = []

    struct Request: Equatable {
        let time: TestTime
        let query: String?
    }

    struct FetchFailed: Error {}

    init() {
        MainScheduler = VirtualMainScheduler(instance: scheduler)
    }

    /// The "server": answers `["<query> 1", "<query> 2"]` 50 ms after the subscription;
    /// the query "fail" fails then instead. Each subscription is one request.
    func fetchAutoCompleteItems(_ query: String?) -> Observable<[String]> {
        Observable.deferred { [unowned self] in
            requests.append(Request(time: scheduler.clock, query: query))
            return Observable<Int>.timer(.milliseconds(50), scheduler: scheduler).flatMap { _ -> Observable<[String]> in
                query == "fail" ? .error(FetchFailed()) : .just(["\(query ?? "") 1", "\(query ?? "") 2"])
            }
        }
    }

    /// Schedules the user's typing: `(time, text)` pairs.
    func typing(_ inputs: [(TestTime, String)]) {
        for (time, text) in inputs {
            scheduler.scheduleAt(time) { [query] in query.type(text) }
        }
    }

    /// Records the label's text and the table's rows as they change.
    func recordOutputs() -> (label: TestableObserver<String?>, rows: TestableObserver<[String?]>) {
        let label = scheduler.createObserver(String?.self)
        let rows = scheduler.createObserver([String?].self)
        resultCount.text.skip(1).subscribe(label).disposed(by: disposeBag)
        resultsTableView.rows.skip(1).subscribe(rows).disposed(by: disposeBag)
        return (label, rows)
    }
}
