import Caching
import XCTest

final class StripedCacheTests: XCTestCase {
    func testKeepsComputedValuesAndCountsHitsAndMisses() {
        let cache = StripedCache<Int, String>(stripes: 4, entriesPerStripe: 8)
        var computed = 0
        for _ in 0..<3 {
            XCTAssertEqual(cache.value(7) { computed += 1; return "seven" }, "seven")
        }
        XCTAssertEqual(computed, 1)
        XCTAssertNil(cache.cached(8))
        let statistics = cache.statistics()
        XCTAssertEqual(statistics.entries, 1)
        XCTAssertEqual(statistics.hits, 2)
        XCTAssertEqual(statistics.misses, 2)  // the first value(7) and cached(8)
    }

    /// One stripe, so the order of eviction is observable: oldest first, by count and by cost.
    func testEvictsTheOldestWhenEitherBoundWouldBePassed() {
        let byCount = StripedCache<Int, Int>(stripes: 1, entriesPerStripe: 3)
        for key in 0..<5 { byCount.insert(key, for: key) }
        XCTAssertEqual((0..<5).map { byCount.cached($0) }, [nil, nil, 2, 3, 4])

        let byCost = StripedCache<Int, [UInt8]>(stripes: 1, entriesPerStripe: 100, costPerStripe: 10, maximumCost: 8,
                                                cost: { $0.count })
        byCost.insert([UInt8](repeating: 0, count: 4), for: 1)
        byCost.insert([UInt8](repeating: 0, count: 4), for: 2)
        byCost.insert([UInt8](repeating: 0, count: 9), for: 3)  // over maximumCost: not kept
        XCTAssertNil(byCost.cached(3))
        XCTAssertEqual(byCost.statistics().cost, 8)
        byCost.insert([UInt8](repeating: 0, count: 5), for: 4)  // 8 + 5 > 10: key 1 goes
        XCTAssertNil(byCost.cached(1))
        XCTAssertNotNil(byCost.cached(2))
        XCTAssertNotNil(byCost.cached(4))
        XCTAssertEqual(byCost.statistics().cost, 9)
        byCost.removeAll()
        XCTAssertEqual(byCost.statistics().entries, 0)
        XCTAssertEqual(byCost.statistics().cost, 0)
        byCost.insert([1], for: 5)
        XCTAssertEqual(byCost.cached(5), [1])
    }

    /// Against a model: an insertion-order list of keys, values and costs, bounded the same way;
    /// `replace` keeps a kept key's place and the older entries make room.
    func testMatchesAFirstInFirstOutModel() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<40 {
            let capacity = Int.random(in: 1...6, using: &random)
            let budget = Int.random(in: 1...20, using: &random)
            let cache = StripedCache<Int, Int>(stripes: 1, entriesPerStripe: capacity, costPerStripe: budget, cost: { $0 })
            var model: [(key: Int, cost: Int)] = []
            func total() -> Int { model.reduce(0) { $0 + $1.cost } }
            func insertIntoModel(_ key: Int, _ value: Int) {
                guard value <= budget, !model.contains(where: { $0.key == key }) else { return }
                while model.count == capacity || (!model.isEmpty && total() + value > budget) { model.removeFirst() }
                model.append((key, value))
            }
            for _ in 0..<300 {
                let key = Int.random(in: 0..<10, using: &random)
                let value = Int.random(in: 1...12, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    XCTAssertEqual(cache.cached(key), model.first { $0.key == key }?.cost)
                case 1:
                    cache.insert(value, for: key)
                    insertIntoModel(key, value)
                default:
                    cache.replace(value, for: key)
                    if let index = model.firstIndex(where: { $0.key == key }) {
                        if value <= budget {
                            model[index].cost = value
                            while !model.isEmpty && total() > budget { model.removeFirst() }
                        } else {
                            model.remove(at: index)
                        }
                    } else {
                        insertIntoModel(key, value)
                    }
                }
                XCTAssertEqual(cache.statistics().entries, model.count)
                XCTAssertEqual(cache.statistics().cost, total())
            }
            for (key, value) in model { XCTAssertEqual(cache.cached(key), value) }
        }
    }

    func testConcurrentUseKeepsTheBounds() {
        let cache = StripedCache<Int, [UInt8]>(stripes: 8, entriesPerStripe: 16, costPerStripe: 200, cost: { $0.count })
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for i in 0..<5000 {
                let key = (i * 7 + thread) % 300
                let value = cache.value(key) { [UInt8](repeating: UInt8(key % 256), count: key % 40) }
                XCTAssertEqual(value, [UInt8](repeating: UInt8(key % 256), count: key % 40))
            }
        }
        let statistics = cache.statistics()
        XCTAssertLessThanOrEqual(statistics.entries, 8 * 16)
        XCTAssertLessThanOrEqual(statistics.cost, 8 * 200)
    }

    /// With epochs a stripe keeps one snapshot's entries: a newer snapshot's first insert retires
    /// the older ones, an older snapshot's insert is not kept, and another store (a different
    /// major, whatever its number: a rollback) replaces them.
    func testEpochsRetireEntriesOfOlderSnapshots() {
        struct Key: Hashable, Sendable {
            var store: UInt64
            var snapshot: UInt64
            var word: Int
        }
        let cache = StripedCache<Key, Int>(stripes: 1, entriesPerStripe: 100,
                                           epoch: { CacheEpoch(major: $0.store, minor: $0.snapshot) })
        for word in 0..<5 { cache.insert(word, for: Key(store: 7, snapshot: 10, word: word)) }
        XCTAssertEqual(cache.statistics().entries, 5)
        cache.insert(99, for: Key(store: 7, snapshot: 9, word: 0))  // a query begun before the write
        XCTAssertNil(cache.cached(Key(store: 7, snapshot: 9, word: 0)))
        XCTAssertEqual(cache.statistics().entries, 5)

        cache.insert(11, for: Key(store: 7, snapshot: 11, word: 1))  // after a write
        XCTAssertEqual(cache.statistics().entries, 1)
        XCTAssertEqual(cache.statistics().retired, 5)
        XCTAssertNil(cache.cached(Key(store: 7, snapshot: 10, word: 2)))
        XCTAssertEqual(cache.cached(Key(store: 7, snapshot: 11, word: 1)), 11)

        cache.insert(3, for: Key(store: 6, snapshot: 40, word: 3))  // rolled back to an older store
        XCTAssertEqual(cache.cached(Key(store: 6, snapshot: 40, word: 3)), 3)
        XCTAssertNil(cache.cached(Key(store: 7, snapshot: 11, word: 1)))
        XCTAssertEqual(cache.statistics().retired, 6)
        cache.replace(4, for: Key(store: 6, snapshot: 40, word: 3))  // the same epoch: kept in place
        XCTAssertEqual(cache.cached(Key(store: 6, snapshot: 40, word: 3)), 4)
        XCTAssertEqual(cache.statistics().entries, 1)
    }

    /// Stripes advance on their own: each keeps the newest epoch inserted into it, and under a
    /// stream of snapshots the cache never holds more than one snapshot's entries per stripe.
    func testEpochsBoundTheCacheToTheNewestSnapshots() {
        let cache = StripedCache<[Int], Int>(stripes: 8, entriesPerStripe: 1000,
                                             epoch: { CacheEpoch(minor: UInt64($0[0])) })
        for snapshot in 1...50 {
            // 400 keys a snapshot: every stripe gets some of each (a stripe missing all of one
            // snapshot's keys, which would keep its older entries, has odds below 10⁻²⁰).
            for word in 0..<400 { cache.insert(word, for: [snapshot, word]) }
        }
        let statistics = cache.statistics()
        XCTAssertEqual(statistics.entries, 400)
        XCTAssertEqual(statistics.retired, 49 * 400)
        XCTAssertEqual((0..<400).filter { cache.cached([50, $0]) != nil }.count, 400)
    }
}
