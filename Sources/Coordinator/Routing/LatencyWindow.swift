/// The recent latencies of one shard's calls as seen from one event loop, and their percentiles:
/// what the automatic hedging delay (the shard's p95) is read from.
///
/// A ring of the last ``capacity`` samples in microseconds; the percentiles are recomputed every
/// ``refreshEvery`` samples, by selection in a scratch copy (linear time, no allocation: a sort
/// of the 256 samples into a new array was a tenth of a coordinator's bookkeeping per call), so
/// reading them on every call costs nothing. Loop-confined (no locks): each loop keeps its own
/// windows.
struct LatencyWindow {
    static let capacity = 256
    static let refreshEvery = 32
    private var samples: [UInt32] = []
    private var scratch: [UInt32] = []
    private var next = 0
    private var sinceRefresh = 0
    private(set) var p95: Duration?
    private(set) var p50: Duration?

    init() {
        samples.reserveCapacity(Self.capacity)
        scratch.reserveCapacity(Self.capacity)
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
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: samples)
            // The p95 rank first: selecting it leaves every smaller sample before it, where the
            // median is then selected (the values a full sort would put at those ranks).
            let high = min(scratch.count - 1, scratch.count * 95 / 100)
            p95 = .microseconds(Int64(Self.select(high, in: &scratch, below: scratch.count)))
            p50 = .microseconds(Int64(Self.select(scratch.count / 2, in: &scratch, below: high + 1)))
        }
    }

    /// The value of rank `rank` (0-based) among `values[0..<end]`, which it reorders: afterwards
    /// `values[rank]` holds it, smaller or equal values before, greater or equal after
    /// (Hoare's quickselect, middle pivot; linear on average).
    private static func select(_ rank: Int, in values: inout [UInt32], below end: Int) -> UInt32 {
        var low = 0, high = end - 1
        while low < high {
            let pivot = values[(low + high) / 2]
            var i = low, j = high
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    values.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if rank <= j {
                high = j
            } else if rank >= i {
                low = i
            } else {
                break  // between j and i: every value there equals the pivot
            }
        }
        return values[rank]
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
