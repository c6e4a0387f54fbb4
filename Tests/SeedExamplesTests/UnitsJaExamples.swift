import Rx
import RxCompat

// The code of `/work/shared/seeds/units-ja.txt` (and the same blocks of `units-en-zh.txt`,
// `units-zh-article.txt`): the RxSwift 2.x spellings `rx_text`, `addDisposableTo`,
// `rx_itemsWithCellIdentifier`, as written there. UIKit controls are stand-ins.
//
// Left out: `let d: Driver<Int> = Drive.just(11); driver.map { $0 / 0.5 } = ...` and
// `Driver(mapped)` (an illustration: `Drive` is a typo, `Int / Double` and the assignment
// don't type-check, `Driver.init` is internal to RxCocoa), and the `Variable` lines of the
// unit tables (prose; `Variable` was removed from RxSwift, use `BehaviorRelay`).

extension UnitsHarness {
    /// "これは典型的な初心者の例です。" (the beginner example).
    func unitsJaBeginnerExample() {
        // The example's closures use these two names; a class's escaping closures would need `self.`.
        let (MainScheduler, fetchAutoCompleteItems) = (self.MainScheduler, self.fetchAutoCompleteItems)
        let results = query.rx_text
            .throttle(0.3, scheduler: MainScheduler.instance)
            .flatMapLatest { query in
                fetchAutoCompleteItems(query)
            }

        results
            .map { "\($0.count)" }
            .bindTo(resultCount.rx_text)
            .addDisposableTo(disposeBag)

        results
            .bindTo(resultsTableView.rx_itemsWithCellIdentifier("Cell")) { (_, result, cell) in
                cell.textLabel?.text = "\(result)"
            }
            .addDisposableTo(disposeBag)
    }

    /// "もっと適切なバージョンのコードはこんな感じです:" (the appropriate version).
    func unitsJaAppropriateExample() {
        // The example's closures use these two names; a class's escaping closures would need `self.`.
        let (MainScheduler, fetchAutoCompleteItems) = (self.MainScheduler, self.fetchAutoCompleteItems)
        let results = query.rx_text
            .throttle(0.3, scheduler: MainScheduler.instance)
            .flatMapLatest { query in
                fetchAutoCompleteItems(query)
                    .observeOn(MainScheduler.instance) // results are returned on MainScheduler
                    .catchErrorJustReturn([])                // in worst case, errors are handled
            }
            .shareReplay(1)                                  // HTTP requests are shared and results replayed
                                                             // to all UI elements

        results
            .map { "\($0.count)" }
            .bindTo(resultCount.rx_text)
            .addDisposableTo(disposeBag)

        results
            .bindTo(resultTableView.rx_itemsWithCellIdentifier("Cell")) { (_, result, cell) in
                cell.textLabel?.text = "\(result)"
            }
            .addDisposableTo(disposeBag)
    }

    /// "次のコードはほとんど同ように見えます:" (the `Driver` version).
    func unitsJaDriverExample() {
        // The example's closures use these two names; a class's escaping closures would need `self.`.
        let (MainScheduler, fetchAutoCompleteItems) = (self.MainScheduler, self.fetchAutoCompleteItems)
        let results = query.rx_text.asDriver()        // This converts normal sequence into `Driver` sequence.
            .throttle(0.3, scheduler: MainScheduler.instance)
            .flatMapLatest { query in
                fetchAutoCompleteItems(query)
                    .asDriver(onErrorJustReturn: [])  // Builder just needs info what to return in case of error.
            }

        results
            .map { "\($0.count)" }
            .drive(resultCount.rx_text)               // If there is `drive` method available instead of `bindTo`,
            .addDisposableTo(disposeBag)              // that means that compiler has proved all properties
                                                      // are satisfied.
        results
            .drive(resultTableView.rx_itemsWithCellIdentifier("Cell")) { (_, result, cell) in
                cell.textLabel?.text = "\(result)"
            }
            .addDisposableTo(disposeBag)
    }
}
