import Rx
import RxCompat

// The code of `/work/shared/seeds/units-en.txt` ("Units", RxSwift 3.x era), as written
// there. Only the UIKit controls are stand-ins (`UIStandIns.swift`); `MainScheduler` is the
// harness's virtual one (`UnitsHarness`). Old spellings come from `RxCompat`.

extension UnitsHarness {
    /// "This is a typical beginner example."
    func unitsEnBeginnerExample() {
        // The example's closures use these two names; a class's escaping closures would need `self.`.
        let (MainScheduler, fetchAutoCompleteItems) = (self.MainScheduler, self.fetchAutoCompleteItems)
        let results = query.rx.text
            .throttle(0.3, scheduler: MainScheduler.instance)
            .flatMapLatest { query in
                fetchAutoCompleteItems(query)
            }

        results
            .map { "\($0.count)" }
            .bindTo(resultCount.rx.text)
            .disposed(by: disposeBag)

        results
            .bindTo(resultsTableView.rx.items(cellIdentifier: "Cell")) { (_, result, cell) in
                cell.textLabel?.text = "\(result)"
            }
            .disposed(by: disposeBag)
    }

    /// "A more appropriate version of the code would look like this:"
    func unitsEnAppropriateExample() {
        // The example's closures use these two names; a class's escaping closures would need `self.`.
        let (MainScheduler, fetchAutoCompleteItems) = (self.MainScheduler, self.fetchAutoCompleteItems)
        let results = query.rx.text
            .throttle(0.3, scheduler: MainScheduler.instance)
            .flatMapLatest { query in
                fetchAutoCompleteItems(query)
                    .observeOn(MainScheduler.instance)  // results are returned on MainScheduler
                    .catchErrorJustReturn([])           // in the worst case, errors are handled
            }
            .shareReplay(1)                             // HTTP requests are shared and results replayed
                                                        // to all UI elements

        results
            .map { "\($0.count)" }
            .bindTo(resultCount.rx.text)
            .disposed(by: disposeBag)

        results
            .bindTo(resultsTableView.rx.items(cellIdentifier: "Cell")) { (_, result, cell) in
                cell.textLabel?.text = "\(result)"
            }
            .disposed(by: disposeBag)
    }

    /// "The following code looks almost the same:" (the `Driver` version).
    func unitsEnDriverExample() {
        // The example's closures use these two names; a class's escaping closures would need `self.`.
        let (MainScheduler, fetchAutoCompleteItems) = (self.MainScheduler, self.fetchAutoCompleteItems)
        let results = query.rx.text.asDriver()        // This converts a normal sequence into a `Driver` sequence.
            .throttle(0.3, scheduler: MainScheduler.instance)
            .flatMapLatest { query in
                fetchAutoCompleteItems(query)
                    .asDriver(onErrorJustReturn: [])  // Builder just needs info about what to return in case of error.
            }

        results
            .map { "\($0.count)" }
            .drive(resultCount.rx.text)               // If there is a `drive` method available instead of `bindTo`,
            .disposed(by: disposeBag)              // that means that the compiler has proven that all properties
                                                      // are satisfied.
        results
            .drive(resultsTableView.rx.items(cellIdentifier: "Cell")) { (_, result, cell) in
                cell.textLabel?.text = "\(result)"
            }
            .disposed(by: disposeBag)
    }

    /// "`asDriver(onErrorJustReturn: [])` is equivalent to following code." The seed's block
    /// is pseudo-code: it leaves out the call parentheses of `shareReplayLatestWhileConnected()`
    /// (added here) and wraps with `Driver(raw:)`, which is internal to RxCocoa (and to `Rx`);
    /// so this returns `safeSequence`, and the test compares it with `asDriver`'s output.
    func unitsEnAsDriverEquivalent(_ xs: Observable<[String]>, onErrorJustReturn: [String]) -> Observable<[String]> {
        let safeSequence = xs
          .observeOn(MainScheduler.instance)       // observe events on main scheduler
          .catchErrorJustReturn(onErrorJustReturn) // can't error out
          .shareReplayLatestWhileConnected()       // side effects sharing
        return safeSequence                        // seed: `return Driver(raw: safeSequence)` (internal)
    }
}
