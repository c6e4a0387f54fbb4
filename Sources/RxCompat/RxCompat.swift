// RxCompat: the spellings RxSwift used before 6, for code written against them (the seeds'
// Units examples, old tutorials). Each is a one-line forward to the RxSwift 6 operator in
// `Rx`, documented with the release that renamed or dropped it and what it meant then.
//
// `Rx` itself stays exactly RxSwift 6's public API. RxSwift 6 still ships some of these
// names marked `deprecated`; here they are not, so a target that opts in by importing
// `RxCompat` builds without warnings. Where an old name meant something else in an older
// release (`throttle` before 3.0), the doc comment says which meaning the forward keeps.
