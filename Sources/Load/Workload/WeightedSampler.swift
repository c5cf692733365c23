import Catalog

/// Picks indices in proportion to their weights: item i with probability wᵢ / Σw.
///
/// Cumulative sums and a binary search: O(n) to build, O(log n) per sample, 8 bytes per item.
/// Deterministic for a generator state (one `uniform()` per sample), which is what keeps
/// `typeahead bench`'s keystroke workload the same from run to run.
///
/// ```swift
/// let sampler = WeightedSampler(weights: entries.map { Double($0.weight) + 1 })
/// var random = SplitMix64(seed: 7)
/// let entry = entries[sampler.sample(&random)]      // popular entries come up more often
/// ```
public struct WeightedSampler: Sendable {
    private let cumulative: [Double]

    /// `weights` must be non-negative with a positive sum (precondition).
    public init(weights: some Sequence<Double>) {
        var cumulative: [Double] = []
        cumulative.reserveCapacity(weights.underestimatedCount)
        var total = 0.0
        for weight in weights {
            precondition(weight >= 0, "WeightedSampler: negative weight \(weight)")
            total += weight
            cumulative.append(total)
        }
        precondition(total > 0, "WeightedSampler: the weights must have a positive sum")
        self.cumulative = cumulative
    }

    /// Items to pick from.
    public var count: Int { cumulative.count }

    /// One index in 0..<count.
    public func sample(_ random: inout SplitMix64) -> Int {
        let target = random.uniform() * cumulative[cumulative.count - 1]
        var low = 0, high = cumulative.count - 1
        while low < high {
            let mid = (low + high) / 2
            if cumulative[mid] < target { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
