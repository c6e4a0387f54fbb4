/// Virtual time type of `TestScheduler`: ticks of the virtual clock.
public typealias TestTime = Int
