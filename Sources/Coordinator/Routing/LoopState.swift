import Cluster
import HTTP2
import RPC
import Services
import Wire

/// What every part of one collection's routing shares, immutable after start: the collection's
/// shards and replicas, its metrics and its sessions. A coordinator has one per collection
/// (``ServedCollection``); nothing here is shared between collections, so each is routed exactly
/// as a cluster of that collection alone would be.
final class CoordinatorCore: Sendable {
    /// The collection's name, as every shard call and health check names it to the nodes.
    let collection: String
    /// The token kinds the collection takes (Describe): "category" and its filterable attributes.
    let tokenKinds: [String]
    let settings: ClusterFile.Settings
    let shardNames: [String]
    let replicas: [Replica]
    /// Per shard, the ids of all its replicas (cluster-file order).
    let replicasByShard: [[Int]]
    let telemetry: CoordinatorTelemetry
    let sessions = SessionTable()
    /// What every shard call carries (the read token, if nodes require one); timeouts are set per call.
    let shardCallOptions: GRPCClient.Options
    /// What health checks carry (the same token).
    let healthCheckOptions: GRPCClient.Options

    /// The core of `collection`; `replicas` are its shards' replicas, ids from 0 in shard order.
    init(collection: ClusterFile.Collection, settings: ClusterFile.Settings, replicas: [Replica], telemetry: CoordinatorTelemetry,
         nodeToken: String?) {
        self.collection = collection.name
        tokenKinds = Typeahead_V1_DescribeResponse.tokenKinds(filterable: collection.filterableAttributes)
        self.settings = settings
        shardNames = collection.shards.map(\.name)
        self.replicas = replicas
        replicasByShard = collection.shards.indices.map { shard in replicas.filter { $0.shard == shard }.map(\.id) }
        self.telemetry = telemetry
        var options = GRPCClient.Options(bearerToken: nodeToken)
        // The fan-out's own deadline timer resets shard calls; the client need not race it.
        options.enforceTimeoutLocally = false
        shardCallOptions = options
        healthCheckOptions = GRPCClient.Options(timeout: settings.healthTimeout, bearerToken: nodeToken)
    }

    /// The core of `cluster`'s default collection.
    convenience init(cluster: ClusterFile, replicas: [Replica], telemetry: CoordinatorTelemetry, nodeToken: String?) {
        self.init(collection: cluster.collections[cluster.defaultIndex], settings: cluster.settings, replicas: replicas,
                  telemetry: telemetry, nodeToken: nodeToken)
    }
}

/// One event loop's share of the coordinator: its copy of the routing view, its connections to
/// every replica, its latency windows and its hedging budget. A request handled on the loop reads
/// and writes only this, so the request path takes no lock.
///
/// Thread ownership: loop-confined (reached through an `HTTP2LoopBound`).
final class LoopState {
    let loop: HTTP2EventLoop
    /// The fan-outs' time: the loop's clock, or a test's ``ManualClock``.
    let clock: FanOutClock
    var view = ClusterView.empty
    /// By replica id.
    let links: [ReplicaLink]
    /// By shard.
    var latency: [LatencyWindow]
    var hedgeBudget: HedgeBudget
    /// Turns among equally good replicas.
    var rotation = 0

    private init(loop: HTTP2EventLoop, core: CoordinatorCore, links: [ReplicaLink], clock: FanOutClock) {
        self.loop = loop
        self.clock = clock
        self.links = links
        latency = Array(repeating: LatencyWindow(), count: core.shardNames.count)
        hedgeBudget = HedgeBudget(rate: core.settings.hedgeBudget)
    }

    /// A loop's state whose replicas are reached over HTTP/2 by `client`, timed by the loop.
    convenience init(loop: HTTP2EventLoop, core: CoordinatorCore, client: HTTP2Client) {
        self.init(loop: loop, core: core, links: core.replicas.map {
            ReplicaLink(replica: $0, loop: loop, client: client, backoff: core.settings.reconnectBackoff)
        }, clock: .loop(loop))
    }

    /// A loop's state whose replicas are in this process (`replicas`, by replica id), timed by
    /// `clock`.
    convenience init(loop: HTTP2EventLoop, core: CoordinatorCore, inProcess replicas: [InProcessReplica], clock: FanOutClock) {
        precondition(replicas.count == core.replicas.count, "one in-process replica per replica of the cluster")
        self.init(loop: loop, core: core, links: zip(core.replicas, replicas).map { ReplicaLink(replica: $0, loop: loop, inProcess: $1) },
                  clock: clock)
    }

    /// Takes a new view; links to replicas it no longer routes to are closed, so calls stuck on a
    /// dead connection fail over now rather than at their deadline.
    func adopt(_ newView: ClusterView) {
        let routed = Set(newView.eligible.joined())
        for link in links where !routed.contains(link.replica.id) && view.eligible.joined().contains(link.replica.id) {
            if !link.replica.health.up { link.drop() }
        }
        view = newView
    }
}
