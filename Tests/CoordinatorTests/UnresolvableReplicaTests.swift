import Cluster
import Coordinator
import Foundation
import Observability
import RPC
import XCTest

/// Found by running the deployment (deploy/): a replica whose host name does not resolve must be
/// a replica that is down, not a crash. In Kubernetes that is every pod that does not exist yet or
/// is being replaced (its DNS record comes and goes with it), or a typo in the cluster file. The
/// connect then fails before it reaches the event loop, so its completion runs on the connecting
/// thread, and the link's loop-bound state must not be touched there.
final class UnresolvableReplicaTests: XCTestCase {
    func testUnresolvableReplicaIsDownNotACrash() throws {
        var configuration = CoordinatorServer.Configuration()
        configuration.server.port = 0
        configuration.server.threads = 2
        configuration.server.shutdownGrace = .milliseconds(200)
        // .invalid never resolves (RFC 6761); the resolver answers at once.
        let layout = [ClusterFile.Shard(name: "shard-0", replicas: [Endpoint(host: "no-such-host.invalid", port: 7701)])]
        let coordinator = CoordinatorServer(cluster: ClusterFile(name: "test", shards: layout, settings: TestCluster.settings()),
                                            configuration: configuration,
                                            telemetry: ServerTelemetry(label: "coordinator", sink: MemorySink()))
        _ = try coordinator.start()
        defer { coordinator.shutdown() }
        // Health checks every 100 ms: ten rounds of failed connects, none of which may trap.
        XCTAssertFalse(coordinator.waitUntilReady(timeout: .seconds(1)))
    }
}
