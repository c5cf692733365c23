/// A latency histogram in the style of HdrHistogram: log-linear buckets with a bounded relative
/// error, constant-time recording, and exact merging — so every event loop keeps its own and the
/// report adds them up, with no lock on the path of a request.
///
/// Buckets (values are nanoseconds, but nothing here depends on the unit):
/// - values 0..<128 have a bucket each (exact);
/// - each octave [2ᵉ, 2ᵉ⁺¹) above is split into 64 equal buckets of width w = 2ᵉ⁻⁶.
///
/// A bucket's lower bound is at least 64·w, so its midpoint is within w/2 ≤ lower/128 of any value
/// in it: **a percentile is within a relative error of 2⁻⁷ (0.78%) of the exact nearest-rank
/// percentile** of the same samples (``relativeError``; the tests check it against
/// ``LatencyRecorder`` on random data). Results are also clamped to the exact minimum and maximum.
///
/// Memory: 8 bytes per bucket up to the largest value seen (≈ 1,300 buckets, 10 KiB, for values up
/// to a second); the full range of UInt64 is 3,776 buckets. ``record(_:)`` is O(1),
/// ``percentile(_:)`` and ``merge(_:)`` are O(buckets).
///
/// A coarser histogram (`init(precisionBits:)`, fewer buckets per octave) trades error for room:
/// at 4 bits, 2⁻⁴ (6.25%) and about 230 buckets up to a second. A load run keeps two per loop for
/// every second of its timeline, and at the default precision they were most of a 30-minute
/// soak's load tester memory (+80 MiB).
///
/// ```swift
/// var histogram = LatencyHistogram()
/// histogram.record(812_000)                  // 812 µs
/// histogram.record(2_400_000)
/// let p99 = histogram.percentile(0.99)       // ≈ 2.4 ms, within 0.78%
/// for bucket in histogram.buckets { print(bucket.lower, bucket.upper, bucket.count) }
/// ```
public struct LatencyHistogram: Sendable, Equatable {
    /// The default resolution: 2^7 exact values, then 2^6 buckets per octave.
    public static let precisionBits = 7
    /// The bound on |reported − exact| / exact for any percentile at the default precision: 2⁻⁷.
    public static let relativeError = 1.0 / Double(1 << precisionBits)

    /// This histogram's precision: below 2^bits every value has its bucket, above each octave is
    /// split into 2^(bits−1) buckets; relative error 2^−bits. Histograms merge only at one precision.
    public let precisionBits: Int
    private var exactLimit: UInt64 { UInt64(1) << precisionBits }    // 128 at 7 bits
    private var perOctave: Int { 1 << (precisionBits - 1) }          // 64 at 7 bits

    /// One non-empty bucket: the values `lower...upper` (inclusive), `count` samples.
    public struct Bucket: Sendable, Equatable {
        public var lower: UInt64
        public var upper: UInt64
        public var count: UInt64
    }

    /// Counts by bucket index, grown on demand to the largest index recorded.
    private var counts: [UInt64] = []
    public private(set) var count: UInt64 = 0
    /// The exact smallest and largest samples (0 when empty).
    public private(set) var minimum: UInt64 = 0
    public private(set) var maximum: UInt64 = 0
    /// The sum of the samples, as a Double (no overflow; mean only).
    private var sum: Double = 0

    /// - Parameter precisionBits: 2...16; see ``precisionBits``.
    public init(precisionBits: Int = LatencyHistogram.precisionBits) {
        precondition((2...16).contains(precisionBits), "precision must be 2...16 bits")
        self.precisionBits = precisionBits
    }

    /// The bound on |reported − exact| / exact of this histogram's percentiles.
    public var relativeError: Double { 1.0 / Double(1 << precisionBits) }

    public var isEmpty: Bool { count == 0 }

    /// The arithmetic mean (0 when empty).
    public var mean: Double { count == 0 ? 0 : sum / Double(count) }

    public mutating func record(_ value: UInt64) {
        let index = index(of: value)
        if index >= counts.count { counts.append(contentsOf: repeatElement(0, count: index + 1 - counts.count)) }
        counts[index] += 1
        if count == 0 || value < minimum { minimum = value }
        if value > maximum { maximum = value }
        count += 1
        sum += Double(value)
    }

    /// Adds every sample of `other` (exact: the buckets line up).
    public mutating func merge(_ other: LatencyHistogram) {
        precondition(other.precisionBits == precisionBits, "histograms merge only at one precision")
        guard !other.isEmpty else { return }
        if other.counts.count > counts.count { counts.append(contentsOf: repeatElement(0, count: other.counts.count - counts.count)) }
        for (index, value) in other.counts.enumerated() where value > 0 { counts[index] += value }
        minimum = isEmpty ? other.minimum : Swift.min(minimum, other.minimum)
        maximum = Swift.max(maximum, other.maximum)
        count += other.count
        sum += other.sum
    }

    /// The nearest-rank percentile at q (0...1), within ``relativeError`` of the exact one: the
    /// midpoint of the bucket holding the sample of rank ``Percentile/rank(_:count:)``, clamped to
    /// [minimum, maximum]. 0 when empty.
    public func percentile(_ q: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = UInt64(Percentile.rank(q, count: Int(clamping: count)))
        var seen: UInt64 = 0
        for (index, value) in counts.enumerated() where value > 0 {
            seen += value
            if seen >= rank {
                let (lower, upper) = range(ofIndex: index)
                let middle = lower + (upper - lower + 1) / 2
                return Swift.min(Swift.max(lower == upper ? lower : middle, minimum), maximum)
            }
        }
        return maximum
    }

    /// The non-empty buckets, in increasing order of value.
    public var buckets: [Bucket] {
        counts.enumerated().compactMap { index, value in
            guard value > 0 else { return nil }
            let (lower, upper) = range(ofIndex: index)
            return Bucket(lower: lower, upper: upper, count: value)
        }
    }

    // MARK: Bucket arithmetic

    /// Values below 2^bits (128) index themselves; above, octave e (the top bit) and the next
    /// bits−1 bits (six) pick one of 2^(bits−1) (64) buckets.
    func index(of value: UInt64) -> Int {
        if value < exactLimit { return Int(value) }
        let exponent = 63 - value.leadingZeroBitCount                    // ≥ bits
        let shift = exponent - (precisionBits - 1)
        let sub = Int(value >> UInt64(shift))                            // perOctave..<2·perOctave
        return Int(exactLimit) + (exponent - precisionBits) * perOctave + (sub - perOctave)
    }

    /// The inclusive value range of bucket `index`.
    func range(ofIndex index: Int) -> (lower: UInt64, upper: UInt64) {
        if index < Int(exactLimit) { return (UInt64(index), UInt64(index)) }
        let octave = (index - Int(exactLimit)) / perOctave
        let sub = (index - Int(exactLimit)) % perOctave + perOctave
        let shift = UInt64(octave + 1)                                   // exponent − (bits − 1)
        let lower = UInt64(sub) << shift
        return (lower, lower + ((1 << shift) - 1))
    }
}
