@testable import Coordinator
import Cluster
import Synchronization
import Wire
import XCTest

/// When a replica counts as judged (``Replica/isJudged``), which a coordinator's readiness waits
/// for before it answers with a shard missing: one failed first check is not a verdict (a node
/// just started on a loaded machine is often only slow to answer its first Stats — the cause of
/// `LocalCollectionsTests.testEachCatalogIsACollection`'s flake, where `typeahead local` reported
/// ready while one shard was out of routing); `failuresToMarkDown` in a row, or an answer, is.
final class ReplicaJudgementTests: XCTestCase {
    func testOneFailedFirstCheckIsNoVerdictButFailuresToMarkDownAre() {
        let changes = Mutex(0)
        let replica = Replica(id: 0, shard: 0, endpoint: Endpoint(host: "127.0.0.1", port: 7000), failuresToMarkDown: 3,
                              onChange: { _ in changes.withLock { $0 += 1 } })
        XCTAssertFalse(replica.isJudged, "never checked")
        replica.failed("health check: deadline exceeded", slow: true)
        XCTAssertFalse(replica.isJudged, "one failed check of a replica never seen up")
        XCTAssertEqual(changes.withLock { $0 }, 1, "the first outcome is news")
        replica.failed("health check: deadline exceeded", slow: true)
        XCTAssertFalse(replica.isJudged)
        XCTAssertEqual(changes.withLock { $0 }, 1)
        replica.failed("health check: cannot connect")
        XCTAssertTrue(replica.isJudged, "down after failuresToMarkDown in a row")
        XCTAssertEqual(changes.withLock { $0 }, 2, "judged down is news (readiness is re-decided), though it was never up")
        replica.failed("health check: cannot connect")
        XCTAssertTrue(replica.isJudged)
        XCTAssertEqual(changes.withLock { $0 }, 2)

        var stats = Typeahead_V1_StatsResponse()
        stats.currentGeneration = 4
        replica.checked(stats, at: .now)
        XCTAssertTrue(replica.isJudged, "answered")
        replica.failed("a call timed out")
        XCTAssertFalse(replica.isJudged, "one failure of an up replica: not yet down")
    }
}
