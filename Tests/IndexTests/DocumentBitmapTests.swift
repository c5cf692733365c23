@testable import Index
@testable import Storage
import TestSupport
import XCTest

/// ``DocumentBitmap`` against sets: membership, both intersection counts, members and the union, for lists of every
/// density, empty ones, ones ending at a word boundary and bitmaps of different lengths.
final class DocumentBitmapTests: XCTestCase {
    func testCountsEqualSetIntersections() {
        var rng = SeededGenerator(seed: 20261207)
        func sample(_ universe: Int, _ share: Double) -> [UInt32] {
            (0..<UInt32(universe)).filter { _ in Double.random(in: 0..<1, using: &rng) < share }
        }
        var compared = 0
        for round in 0..<300 {
            let universe = [0, 1, 63, 64, 65, 128, 1000, 20_000][round % 8]
            let a = sample(universe, [0.0, 0.01, 0.3, 0.9, 1.0][round % 5])
            let b = sample(Int.random(in: 0...max(1, universe), using: &rng), Double.random(in: 0..<1, using: &rng))
            let bits = DocumentBitmap(a), otherBits = DocumentBitmap(b)
            let expected = Set(a).intersection(b).count
            XCTAssertEqual(bits.intersectionCount(otherBits), expected, "round \(round)")
            XCTAssertEqual(otherBits.intersectionCount(bits), expected, "round \(round)")
            XCTAssertEqual(bits.intersectionCount(b), expected, "round \(round)")
            XCTAssertEqual(otherBits.intersectionCount(a), expected, "round \(round)")
            XCTAssertEqual(intersectionCount(a, b), expected, "round \(round)")
            // Members in the tested list's order (numbers past the bitmap's span are not members).
            XCTAssertEqual(bits.members(of: b), intersect(b, a), "round \(round)")
            XCTAssertEqual(otherBits.members(of: a), intersect(a, b), "round \(round)")
            let members = Set(a)
            for doc in 0..<UInt32(universe + 70) where rng.chance(0.05) || doc >= UInt32(universe) {
                XCTAssertEqual(bits.contains(doc), members.contains(doc), "round \(round) doc \(doc)")
            }
            XCTAssertEqual(bits.bytes, 8 * ((Int(a.last.map { $0 + 1 } ?? 0) + 63) / 64))
            // A union keeps the receiver's span: the other's numbers past it are left out.
            var union = bits
            union.formUnion(otherBits)
            let united = Set(a).union(b.filter { Int($0) < bits.span }).sorted()
            XCTAssertEqual(union.intersection(DocumentBitmap(united)), united, "round \(round)")
            XCTAssertEqual(union.span, bits.span)
            compared += 1
        }
        print("[document bitmap] \(compared) pairs compared with sets")
    }

    /// A posting list set in a bitmap spanning another, ANDed with it, equals the sorted
    /// intersection: numbers past the span are left out, and the cursor stops at the first.
    func testPostingsInsertedAndIntersectedEqualSetIntersections() throws {
        var rng = SeededGenerator(seed: 20261209)
        for round in 0..<200 {
            let universe = [1, 64, 65, 1000, 20_000][round % 5]
            let members = (0..<UInt32(universe)).filter { _ in rng.chance([0.0, 0.05, 0.5, 1.0][round % 4]) }
            let postings = (0..<UInt32(universe + 200)).filter { _ in rng.chance(Double.random(in: 0..<0.6, using: &rng)) }
            let bits = DocumentBitmap(members)
            var hits = DocumentBitmap(spanning: bits.span)
            XCTAssertEqual(hits.span, bits.span)
            var writer = ByteWriter()
            PostingList.encode(name: postings, description: [], into: &writer)
            try writer.bytes.withUnsafeBytes { raw in
                var cursor = try PostingCursor(Bytes(base: raw.baseAddress, count: raw.count))
                try hits.insert(&cursor)
                XCTAssertEqual(cursor.current, postings.first { Int($0) >= bits.span }, "round \(round)")
            }
            let expected = postings.filter(Set(members).contains)
            XCTAssertEqual(hits.intersection(bits), expected, "round \(round)")
            XCTAssertEqual(bits.intersection(hits), expected, "round \(round)")
        }
    }

    /// A bitmap is kept only for lists long enough and no bigger than the list as a bitmap.
    func testPaysOnlyForLongDenseLists() {
        XCTAssertFalse(DocumentBitmap.pays(for: []))
        XCTAssertFalse(DocumentBitmap.pays(for: Array(0..<UInt32(DocumentBitmap.minimumDocuments - 1))))
        XCTAssertTrue(DocumentBitmap.pays(for: Array(0..<UInt32(DocumentBitmap.minimumDocuments))))
        // 4,096 documents spread over 32 × 4,096 numbers: the bitmap is as big as the list.
        let spread = (0..<UInt32(DocumentBitmap.minimumDocuments)).map { $0 * 32 }
        XCTAssertTrue(DocumentBitmap.pays(for: spread))
        XCTAssertFalse(DocumentBitmap.pays(for: spread.map { $0 * 2 }))
    }
}
