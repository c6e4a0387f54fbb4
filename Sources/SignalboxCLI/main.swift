print("signalbox: not yet wired")
