import Caching
@testable import Index
import XCTest

final class TermMatchCacheTests: XCTestCase {
    typealias Key = TermMatchCache.Key

    func key(_ n: Int, budget: Int = 1) -> Key {
        Key(word: [UInt32(n)], budget: budget, prefixMode: false)
    }

    func makeCache() -> StripedCache<Key, [Int]> { TermMatchCache.make(bytes: { $0.count }) }

    /// A second ask of the same key is answered from the cache; a different budget or mode is
    /// another key.
    func testRemembersByEveryPartOfTheKey() {
        let cache = makeCache()
        var computed = 0
        XCTAssertEqual(cache.value(key(1)) { computed += 1; return [1] }, [1])
        XCTAssertEqual(cache.value(key(1)) { computed += 1; return [2] }, [1])
        XCTAssertEqual(cache.value(key(1, budget: 2)) { computed += 1; return [3] }, [3])
        XCTAssertEqual(cache.value(Key(word: [1], budget: 1, prefixMode: true)) { computed += 1; return [4] }, [4])
        XCTAssertEqual(computed, 3)
    }

    /// Results over the size limit are returned but not kept; the number of entries stays bounded.
    func testBounded() {
        let cache = makeCache()
        var computed = 0
        let big = Array(repeating: 0, count: cache.maximumCost + 1)
        _ = cache.value(key(7)) { computed += 1; return big }
        _ = cache.value(key(7)) { computed += 1; return big }
        XCTAssertEqual(computed, 2)

        let kept = 16 * cache.entriesPerStripe
        let total = kept * 3
        for n in 0..<total { _ = cache.value(key(1000 + n)) { [n] } }
        var misses = 0
        for n in 0..<total { _ = cache.value(key(1000 + n)) { misses += 1; return [n] } }
        // At most 16 stripes × entriesPerStripe survive; the rest are computed again.
        XCTAssertGreaterThanOrEqual(misses, total - kept)
    }

    /// The caches are bounded by the bytes their term lists take, whatever the number of lists:
    /// thousands of distinct words typed (each a walk of hundreds of terms) stay within 16 stripes
    /// × `bytesPerStripe`, and a walk of tens of thousands of terms is not kept at all.
    func testBoundedByBytes() {
        let cache: StripedCache<Key, TermList> = TermMatchCache.make { $0.memoryBytes }
        func walk(_ n: Int, terms: Int) -> TermList {
            TermList((0..<terms).lazy.map { (Array("term\(n)-\($0)".utf8), 1) })
        }
        let huge = walk(0, terms: 16_384)
        XCTAssertGreaterThan(huge.memoryBytes, cache.maximumCost)
        cache.insert(huge, for: key(0))
        XCTAssertNil(cache.cached(key(0)), "16,384 terms are over the bound")
        for n in 1...3_000 { cache.insert(walk(n, terms: 300), for: key(n)) }
        let statistics = cache.statistics()
        XCTAssertLessThanOrEqual(statistics.cost, 16 * TermMatchCache.bytesPerStripe)
        XCTAssertGreaterThan(statistics.entries, 100)
        XCTAssertLessThan(statistics.entries, 3_000, "bounded by bytes before entries")
    }
}
