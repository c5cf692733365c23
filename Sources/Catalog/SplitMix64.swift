/// A small, fast, seeded pseudo-random generator: SplitMix64 (Steele, Lea and Flood, 2014).
///
/// Deterministic on every platform and Swift version, unlike `SystemRandomNumberGenerator` or the
/// algorithms behind `Int.random(in:using:)`, which may change. Not cryptographic. Each `next()`
/// is a few multiplications; every 64-bit seed gives a full-period stream.
///
/// Example:
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let die = 1 + random.below(6)          // same value on every run
/// let coin = random.uniform() < 0.5
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double uniformly distributed in [0, 1), with 53 random bits.
    public mutating func uniform() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// An integer uniformly distributed in 0..<bound (bound > 0), by Lemire's multiply-shift; the
    /// bias is below 2^-40 for the bounds used here.
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A generator for item `index` of stream `stream` of `seed`: lets item N be made without
    /// making items 0..<N, so that generated catalogs can be read at random positions.
    static func forItem(seed: UInt64, stream: UInt64, index: Int) -> SplitMix64 {
        var mixer = SplitMix64(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        return SplitMix64(seed: mixer.next() ^ (UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15))
    }
}

/// Samples ranks 0..<count with probability proportional to 1 / (rank + 1) (Zipf's law with
/// exponent 1). Only IEEE division and addition are used, which are exactly rounded, so tables
/// and therefore samples are the same on every platform (a `pow` from the C library need not be).
struct ZipfTable: Sendable {
    private let cumulative: [Double]

    init(count: Int) {
        var total = 0.0
        var cumulative: [Double] = []
        cumulative.reserveCapacity(count)
        for rank in 0..<count {
            total += 1 / Double(rank + 1)
            cumulative.append(total)
        }
        self.cumulative = cumulative.map { $0 / total }
    }

    /// O(log count) by binary search.
    func sample(_ random: inout SplitMix64) -> Int {
        let u = random.uniform()
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let mid = (low + high) / 2
            if cumulative[mid] > u { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
