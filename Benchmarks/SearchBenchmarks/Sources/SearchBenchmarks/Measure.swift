import Foundation

/// Monotonic clock in nanoseconds.
func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// CPU time of the calling thread in nanoseconds: unlike wall time, it leaves out the time the
/// thread waited for a core (the machine is shared, so wall-time percentiles include preemption).
func threadCPUTime() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// The load average over the last minute.
func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
}

/// Resident memory figures of this process from /proc/self/status, in MiB.
func memory() -> (resident: Double, peak: Double) {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    func field(_ name: String) -> Double {
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return kilobytes / 1024
        }
        return 0
    }
    return (field("VmRSS"), field("VmHWM"))
}

/// Latency summary of one engine over the workload.
struct Latencies {
    var samples: [Double]  // microseconds, sorted

    init(_ nanoseconds: [UInt64]) {
        samples = nanoseconds.map { Double($0) / 1000 }.sorted()
    }

    func percentile(_ p: Double) -> Double {
        samples[min(samples.count - 1, Int(Double(samples.count) * p))]
    }

    var mean: Double { samples.reduce(0, +) / Double(samples.count) }

    var summary: String {
        String(format: "p50 %8.2f µs   p90 %8.2f µs   p99 %8.2f µs   max %9.1f µs   mean %8.2f µs",
               percentile(0.50), percentile(0.90), percentile(0.99), samples.last ?? 0, mean)
    }
}

/// Times `body` once per query, `passes` times over the whole list; returns every sample, as
/// wall time and as thread CPU time.
func timeQueries(_ queries: [String], passes: Int, _ body: (String) -> Void) -> (wall: [UInt64], cpu: [UInt64]) {
    var wall: [UInt64] = [], cpu: [UInt64] = []
    wall.reserveCapacity(queries.count * passes)
    cpu.reserveCapacity(queries.count * passes)
    for _ in 0..<passes {
        for query in queries {
            let start = now(), startCPU = threadCPUTime()
            body(query)
            cpu.append(threadCPUTime() - startCPU)
            wall.append(now() - start)
        }
    }
    return (wall, cpu)
}

/// Prints a line at once (standard output is a file or pipe when the run is logged).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
