import Cluster
import Foundation
import HTTP2
import RPC
import Wire

/// What `typeahead admin` talks to: the replicas of every shard of one collection (directly, for
/// uploads, updates and generation changes) and the coordinators (to see them switch
/// generations).
///
/// The layout comes from a cluster file, or from a coordinator's `Cluster/Status` (which lists
/// every replica's address), so an operator can point the CLI at either. It is one collection's:
/// the one named at ``connect(to:token:tls:collection:)``, else the cluster's default; every
/// request that addresses a shard's data is sent for it (``call(_:_:on:timeout:role:)``).
///
/// ```swift
/// let admin = try await AdminClient.connect(to: .coordinator(Endpoint("10.0.0.2:7700")!), token: token, collection: "products")
/// let stats = try await admin.call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(), on: admin.layout.shards[0].replicas[0])
/// ```
///
/// Thread-safe: connections are cached by an actor; calls may run concurrently.
public final class AdminClient: Sendable {
    /// Where the cluster is described.
    public enum Target: Sendable {
        case cluster(ClusterFile)
        case coordinator(Endpoint)
    }

    /// The collection of the cluster the admin works on.
    public struct Layout: Sendable {
        /// The cluster's name.
        public var name: String
        /// The collection, as requests name it to nodes and as `Cluster/Status` lists it; empty
        /// when a coordinator older than collections described the cluster (its nodes serve one
        /// collection, which an empty name reaches).
        public var collection: String
        /// The collection's shards, in assignment order.
        public var shards: [ClusterFile.Shard]
        public var coordinators: [Endpoint]
        /// Every collection of the cluster, the default first (for messages).
        public var collections: [String] = []
        /// The collection's filterable attributes as the cluster file declares them (a reindex
        /// builds them into the new generation); nil when a coordinator described the cluster.
        public var filterableAttributes: [String]? = nil

        public init(name: String, collection: String, shards: [ClusterFile.Shard], coordinators: [Endpoint], collections: [String] = []) {
            self.name = name
            self.collection = collection
            self.shards = shards
            self.coordinators = coordinators
            self.collections = collections
        }
    }

    public let layout: Layout
    let token: String?
    private let client: HTTP2Client
    /// The client for the replicas: `client` itself, or one with the cluster file's node TLS.
    private let nodeClient: HTTP2Client
    private let connections = ConnectionCache()

    private init(layout: Layout, token: String?, client: HTTP2Client, nodeClient: HTTP2Client? = nil) {
        self.nodeClient = nodeClient ?? client
        self.layout = layout
        self.token = token
        self.client = client
    }

    /// Learns the layout (from the file, or by asking the coordinator).
    ///
    /// - Throws: ``AdminError`` saying what to do (unreachable coordinator, wrong token).
    /// - Parameter tls: how to reach coordinators over HTTPS (and, with `.coordinator`, the
    ///   replicas it lists, taken to share its PKI); nil: cleartext. With `.cluster`, the replicas
    ///   are reached as the file's settings say (``ClusterFile/Settings/nodeTLS(file:)``).
    /// - Parameter collection: the collection to work on; nil: the cluster's default. One the
    ///   cluster does not have is an ``AdminError`` listing those it has.
    public static func connect(to target: Target, token: String?, tls: HTTP2ClientTLS? = nil,
                               collection: String? = nil) async throws -> AdminClient {
        var configuration = HTTP2Client.Configuration()
        configuration.threadCount = 2
        configuration.connectTimeout = .seconds(3)
        configuration.session.maxBodySize = 64 << 20
        var coordinatorConfiguration = configuration
        coordinatorConfiguration.tls = tls
        let client = try HTTP2Client(configuration: coordinatorConfiguration)
        switch target {
        case .cluster(let file):
            var nodeClient: HTTP2Client?
            do {
                if let nodeTLS = try file.settings.nodeTLS() {
                    configuration.tls = nodeTLS
                    nodeClient = try HTTP2Client(configuration: configuration)
                } else if tls != nil {
                    nodeClient = try HTTP2Client(configuration: configuration)   // cleartext replicas
                }
            } catch {
                client.shutdown()
                throw error
            }
            let names = file.collections.map(\.name)
            guard let chosen = file.collection(named: collection ?? file.defaultCollection) else {
                client.shutdown()
                nodeClient?.shutdown()
                throw AdminError.unknownCollection(collection ?? "", known: names)
            }
            var layout = Layout(name: file.name, collection: chosen.name, shards: chosen.shards, coordinators: file.coordinators,
                                collections: names)
            layout.filterableAttributes = chosen.filterableAttributes
            return AdminClient(layout: layout, token: token, client: client, nodeClient: nodeClient)
        case .coordinator(let endpoint):
            let probe = AdminClient(layout: Layout(name: "", collection: "", shards: [], coordinators: [endpoint]), token: token, client: client)
            let status: Typeahead_V1_ClusterStatusResponse
            do {
                status = try await probe.call(Typeahead_V1_ClusterService.status, Typeahead_V1_ClusterStatusRequest(), on: endpoint,
                                              role: "coordinator")
            } catch {
                client.shutdown()
                throw error
            }
            let layout: Layout
            do {
                layout = try Self.layout(of: status, collection: collection, coordinator: endpoint)
            } catch {
                client.shutdown()
                throw error
            }
            return AdminClient(layout: layout, token: token, client: client)
        }
    }

    /// One collection's layout from a coordinator's status. A coordinator older than collections
    /// lists no `collections`: its `shards` are the whole cluster, the collection `default`.
    static func layout(of status: Typeahead_V1_ClusterStatusResponse, collection: String?, coordinator: Endpoint) throws(AdminError) -> Layout {
        func shards(_ states: [Typeahead_V1_ShardState]) -> [ClusterFile.Shard] {
            states.map { ClusterFile.Shard(name: $0.name, replicas: $0.replicas.compactMap { Endpoint($0.address) }) }
        }
        guard !status.collections.isEmpty else {
            guard collection == nil || collection == CollectionName.default else {
                throw AdminError.unknownCollection(collection ?? "", known: [CollectionName.default])
            }
            return Layout(name: status.name, collection: "", shards: shards(status.shards), coordinators: [coordinator],
                          collections: [CollectionName.default])
        }
        let names = status.collections.map(\.name)
        let wanted = collection ?? status.defaultCollection
        guard let chosen = status.collections.first(where: { $0.name == wanted }) else {
            throw AdminError.unknownCollection(wanted, known: names)
        }
        return Layout(name: status.name, collection: chosen.name, shards: shards(chosen.shards), coordinators: [coordinator], collections: names)
    }

    /// What a coordinator's status says of this admin's collection: its serving generation, its
    /// shards and whether it is ready (the top-level fields from a coordinator older than
    /// collections).
    public func collectionState(in status: Typeahead_V1_ClusterStatusResponse) -> Typeahead_V1_CollectionState {
        Self.state(of: layout.collection, in: status)
    }

    /// ``collectionState(in:)`` of collection `name`.
    public static func state(of name: String, in status: Typeahead_V1_ClusterStatusResponse) -> Typeahead_V1_CollectionState {
        status.collections.first { $0.name == name }
            ?? Typeahead_V1_CollectionState(name: name, servingGeneration: status.servingGeneration, shards: status.shards, ready: status.ready)
    }

    /// Closes every connection. Call when done.
    public func close() {
        client.shutdown()
        if nodeClient !== client { nodeClient.shutdown() }
    }

    /// Every replica with its shard's index and name.
    public var replicas: [(shard: Int, name: String, endpoint: Endpoint)] {
        layout.shards.enumerated().flatMap { index, shard in shard.replicas.map { (index, shard.name, $0) } }
    }

    /// Runs `body` for every replica at once; returns a line per replica it failed on.
    public func onEveryReplica(_ body: @escaping @Sendable ((shard: Int, name: String, endpoint: Endpoint)) async throws -> Void) async -> [String] {
        await withTaskGroup(of: String?.self) { group in
            for replica in replicas {
                group.addTask {
                    do {
                        try await body(replica)
                        return nil
                    } catch {
                        return "\(replica.name) \(replica.endpoint): \(error)"
                    }
                }
            }
            var failures: [String] = []
            for await failure in group { if let failure { failures.append(failure) } }
            return failures.sorted()
        }
    }

    /// One call to a replica of this admin's collection: a request that addresses a shard's data
    /// is sent for ``Layout/collection`` (unless it names one itself). Otherwise as
    /// ``call(_:_:on:timeout:role:)`` for any message.
    public func call<Request: CollectionAddressed, Response: ProtoMessage>(
        _ method: ProtoMethod<Request, Response>, _ request: Request, on endpoint: Endpoint,
        timeout: Duration = .seconds(30), role: String = "replica"
    ) async throws(AdminError) -> Response {
        var request = request
        if request.collection.isEmpty { request.collection = layout.collection }
        return try await send(method, request, on: endpoint, timeout: timeout, role: role)
    }

    /// One call, with the admin token; failures become an ``AdminError`` that names the replica and
    /// says what to do.
    public func call<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: ProtoMethod<Request, Response>, _ request: Request, on endpoint: Endpoint,
        timeout: Duration = .seconds(30), role: String = "replica"
    ) async throws(AdminError) -> Response {
        try await send(method, request, on: endpoint, timeout: timeout, role: role)
    }

    private func send<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: ProtoMethod<Request, Response>, _ request: Request, on endpoint: Endpoint,
        timeout: Duration = .seconds(30), role: String = "replica"
    ) async throws(AdminError) -> Response {
        let connection: HTTP2ClientConnection
        do {
            connection = try await connections.connection(to: endpoint, client: role == "coordinator" ? client : nodeClient)
        } catch {
            throw AdminError.unreachable(role: role, endpoint: endpoint, detail: "\(error)")
        }
        do {
            return try await GRPCClient.call(method, request, on: connection, options: .init(timeout: timeout, bearerToken: token))
        } catch {
            throw AdminError(status: error, method: method.path, role: role, endpoint: endpoint)
        }
    }
}

/// Open connections by endpoint, reconnecting when one closed.
private actor ConnectionCache {
    private var open: [Endpoint: HTTP2ClientConnection] = [:]

    func connection(to endpoint: Endpoint, client: HTTP2Client) async throws -> HTTP2ClientConnection {
        if let connection = open[endpoint], connection.isAcceptingRequests { return connection }
        let connection = try await client.connect(host: endpoint.host, port: endpoint.port)
        open[endpoint] = connection
        return connection
    }
}

/// An admin command's failure, worded for the operator: what failed, where, and what to do.
public struct AdminError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// The call's status, when a server answered.
    public var status: GRPCStatus?
    /// Whether trying again later may succeed (the replica was unreachable or busy).
    public var isTransient: Bool

    public init(_ description: String, status: GRPCStatus? = nil, isTransient: Bool = false) {
        self.description = description
        self.status = status
        self.isTransient = isTransient
    }

    static func unknownCollection(_ name: String, known: [String]) -> AdminError {
        AdminError("the cluster has no collection \"\(name)\" (collections: \(known.joined(separator: ", "))); "
                   + "pass --collection with one of them, or none for the default")
    }

    static func unreachable(role: String, endpoint: Endpoint, detail: String) -> AdminError {
        AdminError("cannot reach \(role) \(endpoint) (\(detail)): is it running and reachable from here? "
                   + "`typeahead admin status` shows every replica", isTransient: true)
    }

    init(status: GRPCStatus, method: String, role: String, endpoint: Endpoint) {
        let call = method.split(separator: "/").last.map(String.init) ?? method
        switch status.code {
        case .unauthenticated:
            self.init("\(role) \(endpoint) refused the admin token for \(call): pass --token-file with the token the servers were "
                      + "started with (or set TYPEAHEAD_ADMIN_TOKEN)", status: status)
        case .unavailable, .deadlineExceeded:
            self.init("\(role) \(endpoint) did not answer \(call) (\(status)): is it running? rerun once it is back", status: status,
                      isTransient: true)
        case .resourceExhausted:
            self.init("\(role) \(endpoint) is busy (\(status.message)); retrying later helps", status: status, isTransient: true)
        case .unimplemented:
            self.init("\(role) \(endpoint) does not know \(call): is it a typeahead \(role) of this version?", status: status)
        default:
            self.init("\(role) \(endpoint): \(call) failed: \(status)", status: status)
        }
    }
}
