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
}
