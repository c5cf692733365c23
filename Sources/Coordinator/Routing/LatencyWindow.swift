/// The recent latencies of one shard's calls as seen from one event loop, and their percentiles:
/// what the automatic hedging delay (the shard's p95) is read from.
///
/// A ring of the last ``capacity`` samples in microseconds; the percentile is recomputed every
/// ``refreshEvery`` samples (one sort of 256 numbers), so reading it on every call costs nothing.
/// Loop-confined (no locks): each loop keeps its own windows.
struct LatencyWindow {
    static let capacity = 256
    static let refreshEvery = 32
    private var samples: [UInt32] = []
    private var next = 0
    private var sinceRefresh = 0
    private(set) var p95: Duration?
    private(set) var p50: Duration?

    init() {
        samples.reserveCapacity(Self.capacity)
    }

    mutating func record(_ duration: Duration) {
        let micros = UInt32(clamping: max(0, duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000))
        if samples.count < Self.capacity {
            samples.append(micros)
        } else {
            samples[next] = micros
            next = (next + 1) % Self.capacity
        }
        sinceRefresh += 1
        // Refresh early while the window fills, so a fresh coordinator hedges sensibly soon.
        if sinceRefresh >= Self.refreshEvery || (p95 == nil && samples.count >= 16) {
            sinceRefresh = 0
            let sorted = samples.sorted()
            p95 = .microseconds(Int64(sorted[min(sorted.count - 1, sorted.count * 95 / 100)]))
            p50 = .microseconds(Int64(sorted[sorted.count / 2]))
        }
    }
}

/// How many hedged requests one event loop may still send: every shard request earns `rate`
/// tokens (up to `burst`), every hedge spends one — so hedges stay at most `rate` of the requests
/// however slow a replica gets, and a slow cluster is not made slower by doubled load.
struct HedgeBudget {
    let rate: Double
    let burst: Double
    private var tokens: Double

    init(rate: Double, burst: Double = 20) {
        self.rate = rate
        self.burst = burst
        tokens = burst
    }

    mutating func earn() {
        tokens = min(burst, tokens + rate)
    }

    mutating func spend() -> Bool {
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
