import Cluster
import XCTest

final class ShardAssignmentTests: XCTestCase {
    /// The documented rule, computed independently here from its description, over many ids: a
    /// change to the function would silently misroute every existing cluster's entries.
    func testFollowsTheDocumentedRule() {
        func reference(_ id: String, _ n: Int) -> Int {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in id.utf8 { h ^= UInt64(b); h = h &* 0x100_0000_01b3 }
            h ^= h >> 30; h = h &* 0xbf58_476d_1ce4_e5b9
            h ^= h >> 27; h = h &* 0x94d0_49bb_1331_11eb
            h ^= h >> 31
            var b: Int64 = -1, j: Int64 = 0
            while j < n {
                b = j
                h = h &* 2_862_933_555_777_941_757 &+ 1
                j = Int64(Double(b + 1) * (2_147_483_648.0 / Double((h >> 33) + 1)))
            }
            return Int(b)
        }
        for n in [1, 2, 3, 5, 8, 64] {
            for i in 0..<2000 {
                let id = "sku-\(i)"
                XCTAssertEqual(ShardAssignment.shard(of: id, shardCount: n), reference(id, n), "\(id) over \(n) shards")
            }
        }
    }

    /// Pinned values, computed by a separate Python implementation of the documented rule: they
    /// must never change (they decide where every existing cluster's entries live).
    func testPinnedValues() {
        let pinned: [(String, UInt64, [Int])] = [
            ("", 0xf52a_15e9_a9b5_e89b, [0, 0, 0, 0, 11, 27]),
            ("sku-00758", 0x98e0_1f7f_aa10_caed, [0, 0, 3, 3, 12, 30]),
            ("sku-1", 0xf6ba_4edd_272e_0924, [0, 2, 3, 3, 13, 46]),
            ("Zürich", 0xc65e_9341_af28_3a5d, [0, 2, 2, 2, 13, 13]),
            ("a", 0x02c0_bdbf_4814_20f8, [1, 1, 1, 1, 9, 57]),
        ]
        for (id, key, shards) in pinned {
            XCTAssertEqual(ShardAssignment.key(of: id), key, id)
            XCTAssertEqual([2, 3, 4, 5, 16, 64].map { ShardAssignment.shard(of: id, shardCount: $0) }, shards, id)
        }
        XCTAssertEqual(ShardAssignment.shard(of: "anything", shardCount: 1), 0)
    }

    func testSpreadsEvenly() {
        for n in [2, 3, 5, 16] {
            var counts = [Int](repeating: 0, count: n)
            let total = 60_000
            for i in 0..<total { counts[ShardAssignment.shard(of: "e\(i)", shardCount: n)] += 1 }
            let expected = Double(total) / Double(n)
            for (shard, count) in counts.enumerated() {
                // 6 standard deviations of a binomial count: never flaky, still catches a skew.
                let sigma = (expected * (1 - 1 / Double(n))).squareRoot()
                XCTAssertLessThan(abs(Double(count) - expected), 6 * sigma, "shard \(shard) of \(n): \(counts)")
            }
        }
    }

    /// Growing from N to N+1 shards moves entries only to the new shard, about 1/(N+1) of them.
    func testGrowingMovesOnlyToTheNewShard() {
        for n in [1, 2, 4, 7] {
            var moved = 0
            let total = 20_000
            for i in 0..<total {
                let before = ShardAssignment.shard(of: "id-\(i)", shardCount: n)
                let after = ShardAssignment.shard(of: "id-\(i)", shardCount: n + 1)
                if before != after {
                    XCTAssertEqual(after, n, "id-\(i) moved between old shards (\(before) → \(after))")
                    moved += 1
                }
            }
            let expected = Double(total) / Double(n + 1)
            XCTAssertLessThan(abs(Double(moved) - expected), expected * 0.1, "moved \(moved) of \(total) going from \(n) to \(n + 1)")
        }
    }

    /// Ids are bytes: canonically equivalent spellings are different ids with their own keys.
    func testIdsAreBytes() {
        XCTAssertNotEqual(ShardAssignment.key(of: "Caf\u{E9}"), ShardAssignment.key(of: "Cafe\u{301}"))
    }
}
