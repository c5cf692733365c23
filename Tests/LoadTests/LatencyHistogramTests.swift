import Catalog
import Load
import XCTest

/// The histogram's percentiles against the exact ones of the same samples (``LatencyRecorder``),
/// and the bucket arithmetic behind the error bound.
final class LatencyHistogramTests: XCTestCase {
    static let quantiles = [0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9999, 1]

    /// Checks every quantile of `samples`: |histogram − exact| ≤ exact · 2⁻ᵇⁱᵗˢ (7 by default).
    func assertWithinBound(_ samples: [UInt64], _ label: String, precisionBits: Int = LatencyHistogram.precisionBits,
                           file: StaticString = #filePath, line: UInt = #line) {
        var exact = LatencyRecorder()
        var histogram = LatencyHistogram(precisionBits: precisionBits)
        for sample in samples {
            exact.record(sample)
            histogram.record(sample)
        }
        XCTAssertEqual(histogram.count, UInt64(samples.count), file: file, line: line)
        XCTAssertEqual(histogram.minimum, samples.min(), file: file, line: line)
        XCTAssertEqual(histogram.maximum, samples.max(), file: file, line: line)
        for q in Self.quantiles {
            let truth = Double(exact.percentile(q)), measured = Double(histogram.percentile(q))
            XCTAssertLessThanOrEqual(abs(measured - truth), truth * histogram.relativeError,
                                     "\(label): q=\(q) exact \(truth) histogram \(measured)", file: file, line: line)
        }
    }

    func testPercentilesAreWithinTheRelativeErrorOnRandomData() {
        var random = SplitMix64(seed: 20240601)
        for round in 0..<20 {
            let count = 1 + random.below(20_000)
            // Log-uniform from 1 ns to ~17 s: every octave of the range gets samples.
            let logUniform = (0..<count).map { _ in UInt64(exp2(random.uniform() * 34)) }
            assertWithinBound(logUniform, "log-uniform round \(round)")
            // Exponential around 800 µs with a heavy tail, like a server's latencies.
            let exponential = (0..<count).map { _ in
                UInt64(-log(1 - random.uniform()) * 800_000 * (random.uniform() < 0.01 ? 50 : 1))
            }
            assertWithinBound(exponential, "exponential round \(round)")
        }
    }

    /// The coarse histograms of a load run's timeline: the same bound at their precision, in
    /// far fewer buckets.
    func testCoarserPrecisionsKeepTheirBound() {
        var random = SplitMix64(seed: 20261205)
        for bits in [2, 4, 5, 10] {
            for round in 0..<5 {
                let count = 1 + random.below(20_000)
                let logUniform = (0..<count).map { _ in UInt64(exp2(random.uniform() * 34)) }
                assertWithinBound(logUniform, "\(bits) bits, log-uniform round \(round)", precisionBits: bits)
            }
        }
        var coarse = LatencyHistogram(precisionBits: 4), fine = LatencyHistogram()
        for value in stride(from: UInt64(1), to: 2_000_000_000, by: 9_973) {
            coarse.record(value)
            fine.record(value)
        }
        XCTAssertLessThan(coarse.buckets.count * 5, fine.buckets.count, "a 4-bit histogram needs a fifth of the buckets or fewer")
        XCTAssertEqual(coarse.relativeError, 1.0 / 16)
    }

    func testFewSamplesAndExtremes() {
        assertWithinBound([42], "one sample")
        assertWithinBound([0, 0, 0], "zeros")
        assertWithinBound([1, UInt64.max], "full range")
        assertWithinBound(Array(0..<300), "exact region and the first octaves")
        XCTAssertEqual(LatencyHistogram().percentile(0.5), 0)
        XCTAssertTrue(LatencyHistogram().buckets.isEmpty)
    }

    /// Small values have a bucket each, so their percentiles are exact.
    func testValuesBelow128AreExact() {
        var random = SplitMix64(seed: 3)
        let samples = (0..<5000).map { _ in UInt64(random.below(128)) }
        var exact = LatencyRecorder()
        var histogram = LatencyHistogram()
        for sample in samples { exact.record(sample); histogram.record(sample) }
        for q in Self.quantiles { XCTAssertEqual(histogram.percentile(q), exact.percentile(q), "q=\(q)") }
    }

    /// Merging per-loop histograms is the same as recording everything into one.
    func testMergeEqualsRecordingEverything() {
        var random = SplitMix64(seed: 11)
        var parts = [LatencyHistogram](repeating: LatencyHistogram(), count: 4)
        var whole = LatencyHistogram()
        for _ in 0..<50_000 {
            let value = UInt64(exp2(random.uniform() * 30))
            parts[random.below(4)].record(value)
            whole.record(value)
        }
        var merged = LatencyHistogram()
        for part in parts { merged.merge(part) }
        XCTAssertEqual(merged.buckets, whole.buckets)
        XCTAssertEqual(merged.count, whole.count)
        XCTAssertEqual(merged.minimum, whole.minimum)
        XCTAssertEqual(merged.maximum, whole.maximum)
        for q in Self.quantiles { XCTAssertEqual(merged.percentile(q), whole.percentile(q)) }
        XCTAssertEqual(merged.mean, whole.mean, accuracy: whole.mean * 1e-9)
    }

    /// Buckets tile the values without gaps or overlaps, and every bucket is narrow enough for the
    /// bound: width ≤ lower bound / 64.
    func testBucketsTileTheRangeWithBoundedWidth() {
        var histogram = LatencyHistogram()
        var value: UInt64 = 0
        // One sample per bucket up to 2^40, then a few huge ones.
        while value < 1 << 40 {
            histogram.record(value)
            let width = value < 128 ? 1 : UInt64(1) << UInt64(63 - value.leadingZeroBitCount - 6)
            value += width
        }
        histogram.record(UInt64.max)
        let buckets = histogram.buckets
        for (previous, next) in zip(buckets, buckets.dropFirst()) where next.lower < 1 << 40 {
            XCTAssertEqual(previous.upper + 1, next.lower, "gap or overlap at \(previous.upper)")
        }
        for bucket in buckets where bucket.lower >= 128 {
            XCTAssertLessThanOrEqual(bucket.upper - bucket.lower + 1, bucket.lower / 64, "bucket \(bucket.lower)...\(bucket.upper)")
        }
        XCTAssertEqual(buckets.last?.upper, UInt64.max)
        XCTAssertTrue(buckets.allSatisfy { $0.count == 1 })
    }

    func testLatencyFormatting() {
        XCTAssertEqual(formatLatency(nanoseconds: 500), "500 ns")
        XCTAssertEqual(formatLatency(nanoseconds: 8_120), "8.12 µs")
        XCTAssertEqual(formatLatency(nanoseconds: 81_200), "81.2 µs")
        XCTAssertEqual(formatLatency(nanoseconds: 812_000), "812 µs")
        XCTAssertEqual(formatLatency(nanoseconds: 2_400_000), "2.40 ms")
        XCTAssertEqual(formatLatency(nanoseconds: 9_999_000), "10.0 ms")
        XCTAssertEqual(formatLatency(nanoseconds: 168_820_000), "169 ms")
        XCTAssertEqual(formatLatency(nanoseconds: 3_500_000_000), "3.50 s")
    }
}
