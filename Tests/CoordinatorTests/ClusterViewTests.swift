@testable import Coordinator
import Cluster
import Wire
import XCTest

/// The routing view: which replicas serve which shard. Pure (no sockets): replicas are fed health
/// checks and failures as the coordinator's checker would.
final class ClusterViewTests: XCTestCase {
    private func replicas(shards: Int, replicas: Int) -> [Replica] {
        (0..<shards * replicas).map { id in
            Replica(id: id, shard: id / replicas, endpoint: Endpoint(host: "127.0.0.1", port: 7000 + id), failuresToMarkDown: 2,
                    onChange: { _ in })
        }
    }

    private func stats(generation: UInt64) -> Typeahead_V1_StatsResponse {
        var stats = Typeahead_V1_StatsResponse()
        stats.currentGeneration = generation
        return stats
    }

    func testUpReplicasHoldingTheGenerationServe() {
        let all = replicas(shards: 2, replicas: 2)
        for replica in all { replica.checked(stats(generation: 3), at: .now) }
        let view = ClusterView.build(from: all, shardCount: 2)
        XCTAssertEqual(view.generation, 3)
        XCTAssertEqual(view.eligible, [[0, 1], [2, 3]])
        XCTAssertEqual(view.degraded, [false, false])
    }

    func testASlowReplicaLeavesWhileAnotherServesItsShard() {
        let all = replicas(shards: 2, replicas: 2)
        for replica in all { replica.checked(stats(generation: 3), at: .now) }
        all[1].failed("health check: DEADLINE_EXCEEDED", slow: true)
        all[1].failed("health check: DEADLINE_EXCEEDED", slow: true)
        let view = ClusterView.build(from: all, shardCount: 2)
        XCTAssertEqual(view.eligible, [[0], [2, 3]])
        XCTAssertEqual(view.degraded, [false, false])
    }

    func testAShardWhoseReplicasAreAllSlowKeepsThemDegraded() {
        let all = replicas(shards: 2, replicas: 2)
        for replica in all { replica.checked(stats(generation: 3), at: .now) }
        for replica in all[2...3] {
            replica.failed("health check: DEADLINE_EXCEEDED", slow: true)
            replica.failed("health check: DEADLINE_EXCEEDED", slow: true)
            XCTAssertFalse(replica.health.up)
        }
        let view = ClusterView.build(from: all, shardCount: 2)
        XCTAssertEqual(view.generation, 3)
        XCTAssertEqual(view.eligible, [[0, 1], [2, 3]], "a slow shard is answered slowly, not left out")
        XCTAssertEqual(view.degraded, [false, true])

        // One comes back: it alone serves, the other slow one leaves.
        all[3].checked(stats(generation: 3), at: .now)
        let recovered = ClusterView.build(from: all, shardCount: 2)
        XCTAssertEqual(recovered.eligible, [[0, 1], [3]])
        XCTAssertEqual(recovered.degraded, [false, false])
    }

    func testUnreachableReplicasLeaveEvenWhenTheirShardIsLeftEmpty() {
        let all = replicas(shards: 2, replicas: 2)
        for replica in all { replica.checked(stats(generation: 3), at: .now) }
        all[2].failed("health check: DEADLINE_EXCEEDED", slow: true)
        all[2].failed("health check: cannot connect to 127.0.0.1:7002")   // killed after being slow
        all[3].failed("health check: cannot connect to 127.0.0.1:7003")
        all[3].failed("health check: cannot connect to 127.0.0.1:7003")
        let view = ClusterView.build(from: all, shardCount: 2)
        XCTAssertEqual(view.eligible, [[0, 1], []])
        XCTAssertEqual(view.degraded, [false, false])
    }

    func testSlowReplicasOfAnotherGenerationDoNotServe() {
        let all = replicas(shards: 2, replicas: 1)
        all[0].checked(stats(generation: 4), at: .now)
        all[1].checked(stats(generation: 3), at: .now)   // has not switched: holds only 3
        all[1].failed("health check: DEADLINE_EXCEEDED", slow: true)
        all[1].failed("health check: DEADLINE_EXCEEDED", slow: true)
        let view = ClusterView.build(from: all, shardCount: 2)
        XCTAssertEqual(view.generation, 4)
        XCTAssertEqual(view.eligible, [[0], []])
    }
}
