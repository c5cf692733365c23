import Catalog
import Foundation

/// When sessions start in the open loop: gaps between arrivals at `rate` per second.
///
/// - ``Kind-swift.enum/poisson``: exponential gaps (mean 1/rate), what many independent people
///   produce, with the bursts that come with it. The default.
/// - ``Kind-swift.enum/uniform``: exactly 1/rate apart, for a steady, repeatable load.
///
/// ```swift
/// var arrivals = ArrivalProcess(rate: 50, kind: .poisson)
/// var random = SplitMix64(seed: 1)
/// let gap = arrivals.nextGap(&random)      // nanoseconds, 20 ms on average
/// ```
public struct ArrivalProcess: Sendable, Equatable {
    /// How gaps are drawn (the `--arrivals` values).
    public enum Kind: String, Sendable, CaseIterable {
        case poisson, uniform
    }

    /// Arrivals per second (> 0).
    public var rate: Double
    public var kind: Kind

    public init(rate: Double, kind: Kind) {
        precondition(rate > 0, "ArrivalProcess: the rate must be positive")
        self.rate = rate
        self.kind = kind
    }

    /// Nanoseconds to the next arrival (at least 1).
    public func nextGap(_ random: inout SplitMix64) -> UInt64 {
        let seconds: Double
        switch kind {
        case .uniform: seconds = 1 / rate
        // Inverse transform; 1 − u is in (0, 1], so the logarithm is finite.
        case .poisson: seconds = -log(1 - random.uniform()) / rate
        }
        return max(1, UInt64(min(seconds * 1e9, 1e18)))
    }
}
