@testable import Index
import XCTest

/// `sortDocuments` against the standard library's sort: every size around the radix sort's
/// thresholds (the standard sort, 8-bit digits, 11-bit digits), and ranges that take one, two,
/// three and more passes of either width (an odd count leaves the result in the scratch buffer,
/// copied back), with repeats and already sorted or reversed input.
final class SortedListsTests: XCTestCase {
    func testSortDocumentsSortsAsTheStandardSortDoes() {
        var generator = SystemRandomNumberGenerator()
        let sizes = [0, 1, 2, radixSortMinimum - 1, radixSortMinimum, radixSortMinimum + 1, 200,
                     wideDigitMinimum - 1, wideDigitMinimum, wideDigitMinimum + 1, 4_096, 70_000]
        // 8-bit digits: one, two, three, four passes; 11-bit: one, two, three.
        let ranges: [ClosedRange<UInt32>] = [0...0, 0...7, 0...255, 0...(1 << 16 - 1), 0...(1 << 24 - 1), 0...2_047,
                                             0...(1 << 22 - 1), 0...UInt32.max, (UInt32.max - 5)...UInt32.max]
        for size in sizes {
            for range in ranges {
                let numbers = (0..<size).map { _ in UInt32.random(in: range, using: &generator) }
                for input in [numbers, numbers.sorted(), numbers.sorted(by: >)] {
                    var sorted = input
                    sortDocuments(&sorted)
                    XCTAssertEqual(sorted, input.sorted(), "\(size) numbers in \(range)")
                }
            }
        }
    }

    /// `sortPairsByKey` is a stable sort by the high half when the low halves are positions:
    /// against the standard library's sort by key of (key, position) pairs, with many equal keys,
    /// at sizes around the thresholds and keys taking one to three passes of either digit width.
    func testSortPairsByKeyIsAStableSortByKey() {
        var generator = SystemRandomNumberGenerator()
        let sizes = [0, 1, radixSortMinimum - 1, radixSortMinimum, 300, wideDigitMinimum - 1, wideDigitMinimum, 5_000]
        let ranges: [ClosedRange<UInt32>] = [0...0, 0...3, 0...255, 0...(1 << 20 - 1), 0...UInt32.max]
        for size in sizes {
            for range in ranges {
                let keys = (0..<size).map { _ in UInt32.random(in: range, using: &generator) }
                var pairs = keys.enumerated().map { UInt64($1) << 32 | UInt64($0) }
                sortPairsByKey(&pairs)
                let expected = keys.enumerated().sorted { $0.element < $1.element || ($0.element == $1.element && $0.offset < $1.offset) }
                XCTAssertEqual(pairs.map { UInt32($0 >> 32) }, expected.map(\.element), "\(size) keys in \(range)")
                XCTAssertEqual(pairs.map { Int($0 & 0xFFFF_FFFF) }, expected.map(\.offset), "\(size) keys in \(range): positions")
            }
        }
    }

    func testSortUniqueRemovesRepeats() {
        var numbers = (0..<5_000).map { UInt32($0 % 1_000 * 7_919) }
        numbers.shuffle()
        sortUnique(&numbers)
        XCTAssertEqual(numbers, (0..<1_000).map { UInt32($0 * 7_919) })
    }

    /// `gallop`, `intersect` and `intersectionCount` against sets and a linear scan: lists of
    /// every size relation (equal, one sixteen times shorter or more, which gallops, empty),
    /// dense and sparse, with starts at, inside and past the end.
    func testGallopAndIntersectionsMatchALinearScan() {
        var generator = SystemRandomNumberGenerator()
        func list(_ count: Int, below bound: UInt32) -> [UInt32] {
            Array(Set((0..<count).map { _ in UInt32.random(in: 0...bound, using: &generator) })).sorted()
        }
        for (a, b) in [(0, 0), (0, 50), (1, 1), (3, 200), (10, 10), (20, 5_000), (300, 400), (1, 100_000), (64, 64 * 17)] {
            for bound in [UInt32(10), 1_000, 1_000_000] {
                let x = list(a, below: bound), y = list(b, below: bound)
                let expected = x.filter(Set(y).contains)
                XCTAssertEqual(intersect(x, y), expected, "\(a) and \(b) below \(bound)")
                XCTAssertEqual(intersect(y, x), expected, "\(b) and \(a) below \(bound)")
                XCTAssertEqual(intersectionCount(x, y), expected.count)
                for start in [0, y.count / 3, y.count, y.count + 2] {
                    for value in [0, 1, bound / 2, bound, UInt32.max] + x.prefix(20) {
                        let scan = start >= y.count ? start : (y[start...].firstIndex { $0 >= value } ?? y.count)
                        XCTAssertEqual(gallop(y, to: value, from: start), scan, "\(value) from \(start) in \(y.count)")
                    }
                }
            }
        }
    }
}
