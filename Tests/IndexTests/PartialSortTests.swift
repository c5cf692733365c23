@testable import Index
import XCTest

/// `selectSmallest` and `forEachAscending` against the standard library's sort: sizes on both
/// sides of the selection threshold, few and many distinct values (repeats, all equal), sorted,
/// reversed and organ-pipe input (the shapes that defeat a poor pivot), and every stopping point
/// of the reader around the selected part's end.
final class PartialSortTests: XCTestCase {
    private static func shapes(_ numbers: [UInt32]) -> [[UInt32]] {
        let sorted = numbers.sorted()
        let half = sorted.count / 2
        let organPipe = Array(sorted[..<half]) + sorted[half...].reversed()
        return [numbers, sorted, Array(sorted.reversed()), organPipe]
    }

    func testSelectSmallestPutsTheSmallestFirst() {
        var generator = SystemRandomNumberGenerator()
        for size in [1, 2, 3, 5, 64, 65, 257, 1_000, 4_096] {
            for range: ClosedRange<UInt32> in [0...0, 0...3, 0...1_000, 0...UInt32.max] {
                let numbers = (0..<size).map { _ in UInt32.random(in: range, using: &generator) }
                for input in Self.shapes(numbers) {
                    for count in Set([0, 1, size / 3, size - 1, size, size + 1]) {
                        var values = input
                        values.withUnsafeMutableBufferPointer { selectSmallest($0, count) }
                        XCTAssertEqual(values.sorted(), input.sorted(), "a permutation (\(size), \(count))")
                        guard count > 0, count < size else { continue }
                        XCTAssertEqual(values[..<count].sorted(), Array(input.sorted()[..<count]),
                                       "the \(count) smallest of \(size) in \(range)")
                    }
                }
            }
        }
    }

    func testForEachAscendingReadsInOrderAndStopsWhenTold() {
        var generator = SystemRandomNumberGenerator()
        for size in [0, 1, 63, 64, 256, 257, 300, 4_096] {
            for range: ClosedRange<UInt32> in [0...5, 0...(1 << 22), 0...UInt32.max] {
                let numbers = (0..<size).map { _ in UInt32.random(in: range, using: &generator) }
                let expected = numbers.sorted()
                for input in Self.shapes(numbers) {
                    for stop in Set([0, 1, 63, 64, 65, size / 2, size, size + 1]) {
                        var values = input
                        var read: [UInt32] = []
                        forEachAscending(&values, first: 64) { value in
                            read.append(value)
                            return read.count < stop
                        }
                        XCTAssertEqual(read, Array(expected.prefix(max(stop, 1))), "\(size) numbers, stopping after \(stop)")
                        XCTAssertEqual(values.sorted(), expected, "the numbers are kept")
                    }
                }
            }
        }
    }
}
