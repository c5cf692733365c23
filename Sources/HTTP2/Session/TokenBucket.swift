/// A token bucket: `burst` tokens, refilled at `perSecond`; ``take(at:)`` spends one if there is one.
struct TokenBucket {
    let burst: Double
    let perSecond: Double
    private var tokens: Double
    private var refilled: UInt64

    init(burst: Double, perSecond: Double, now: UInt64) {
        self.burst = burst
        self.perSecond = perSecond
        tokens = burst
        refilled = now
    }

    mutating func take(at now: UInt64) -> Bool {
        tokens = min(burst, tokens + Double(now &- refilled) / 1e9 * perSecond)
        refilled = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
