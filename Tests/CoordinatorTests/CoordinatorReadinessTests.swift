import Catalog
import Cluster
@testable import Coordinator
import Foundation
import Index
import Node
import Observability
import RPC
import TestSupport
import XCTest

/// A real coordinator's readiness (`/readyz`, ``CoordinatorServer/isReady``) with a shard that
/// never answers: it does become ready — a dead shard must not keep the cluster out of service —
/// but only once that shard's replica is judged down (``Replica/isJudged``: `failuresToMarkDown`
/// failed checks in a row), never on its first failed check, which on a loaded machine is as
/// often a node slow to answer its first Stats (it made `typeahead local` ready with a shard
/// missing: `LocalCollectionsTests.testEachCatalogIsACollection`'s flake).
final class CoordinatorReadinessTests: XCTestCase {
    func testADeadShardIsReadyOnlyOnceJudgedDown() throws {
        let directory = TemporaryDirectory("typeahead-readiness")
        let shard = try Shard(directory: directory.path + "/shard-0")
        try shard.build(from: [CatalogEntry(id: "1", title: "Red shoe")], number: 1)
        let node = TestCluster.node(shard, port: 0)
        let port = try node.start()
        defer { node.shutdown() }

        var settings = TestCluster.settings()
        settings.healthInterval = .milliseconds(150)
        settings.failuresToMarkDown = 3
        // Shard 1's replica: a port nothing listens on (every check fails at once).
        let layout = [ClusterFile.Shard(name: "shard-0", replicas: [Endpoint(host: "127.0.0.1", port: port)]),
                      ClusterFile.Shard(name: "shard-1", replicas: [Endpoint(host: "127.0.0.1", port: 1)])]
        var configuration = CoordinatorServer.Configuration()
        configuration.server.port = 0
        configuration.server.threads = 2
        configuration.server.shutdownGrace = .milliseconds(200)
        let coordinator = CoordinatorServer(cluster: ClusterFile(name: "readiness", shards: layout, settings: settings),
                                            configuration: configuration, telemetry: ServerTelemetry(label: "coordinator", sink: MemorySink()))
        _ = try coordinator.start()
        defer { coordinator.shutdown() }

        let dead = coordinator.collections[0].core.replicas[1]
        let end = ContinuousClock.now + .seconds(20)
        while !coordinator.isReady, ContinuousClock.now < end { usleep(1_000) }
        XCTAssertTrue(coordinator.isReady, "a dead shard keeps the cluster out of service")
        // Failures only grow while the replica stays dead, so this holds from the moment it is ready.
        XCTAssertGreaterThanOrEqual(dead.health.consecutiveFailures, 3, "ready once judged down, not at the first failed check")
    }
}
