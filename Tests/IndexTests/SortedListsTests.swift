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

    func testSortUniqueRemovesRepeats() {
        var numbers = (0..<5_000).map { UInt32($0 % 1_000 * 7_919) }
        numbers.shuffle()
        sortUnique(&numbers)
        XCTAssertEqual(numbers, (0..<1_000).map { UInt32($0 * 7_919) })
    }
}
