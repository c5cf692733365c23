import Foundation
import Wire

/// A cluster's layout and settings, as an operator writes them in a JSON file (samples:
/// `deploy/cluster/cluster-3x2.json`, and with two collections
/// `deploy/cluster/collections/local-2x2.json`).
///
/// ```json
/// {
///   "name": "catalog",
///   "shards": [
///     {"name": "shard-0", "replicas": ["10.0.0.10:7701", "10.0.0.11:7701"]},
///     {"name": "shard-1", "replicas": ["10.0.0.12:7701", "10.0.0.13:7701"]}
///   ],
///   "coordinators": ["10.0.0.2:7700"],
///   "settings": {"suggestDeadlineMs": 200, "hedgeDelayMs": "p95", "tokenFile": "admin.token"}
/// }
/// ```
///
/// A cluster serves one or more **collections** (named catalogs, each with its own shards,
/// generations and shard assignment):
///
/// ```json
/// {
///   "collections": [
///     {"name": "products", "shards": [{"name": "shard-0", "replicas": ["10.0.0.10:7701"]}, …]},
///     {"name": "departments", "shards": [{"name": "shard-0", "replicas": ["10.0.0.10:7701"]}]}
///   ],
///   "defaultCollection": "products"
/// }
/// ```
///
/// - `shards`, in order: the i-th shard holds the entries that ``ShardAssignment`` places in shard
///   i, so the order must never change (append to grow; see the runbook). Names are unique; each
///   shard has 1 to 16 replicas, `host:port`, unique within the collection (one node process
///   may serve a shard of several collections: `typeahead node --collection NAME=DIR`). The
///   top-level `shards` are the collection named `default`.
/// - `collections`: optional, more collections (or all of them, without top-level `shards`):
///   each a `name` (``CollectionName``: 1 to 64 bytes of `[a-z0-9_-]`, unique) and its `shards`
///   under the rules above, and optional `filterableAttributes`.
/// - `filterableAttributes`: optional, per collection (top level: the collection `default`):
///   attribute keys whose values become tokens and token chips (``Collection/filterableAttributes``),
///   each by the collection-name rule and not `category` (reserved), at most 32.
/// - `defaultCollection`: optional, the collection a request without `collection` reads: by
///   default `default` when the file has top-level `shards`, else the first of `collections`.
/// - `scopes`: optional, what a scoped request searches: each a `name` (the collection-name rule,
///   unique), a `label` and a `prompt` (1 to 256 bytes each), its `collections` (of this file, each
///   once, in the order of the answer's sections) and optional fixed `tokens`
///   (`{"kind": "category", "value": …}`), see ``Scope``.
/// - `coordinators`: optional, the coordinators' addresses; `typeahead admin` tells them about a
///   new generation so they switch at once instead of at their next health check.
/// - `settings`: every key optional (see ``Settings`` for meanings and defaults). Unknown keys
///   anywhere are refused, so a misspelt setting never silently keeps its default.
///
/// Relative paths (token files) are relative to the cluster file's directory.
public struct ClusterFile: Sendable, Hashable {
    /// One collection: a catalog split over its own shards.
    public struct Collection: Sendable, Hashable {
        public var name: String
        /// In assignment order.
        public var shards: [Shard]
        /// Attribute keys whose values are tokens and token chips in this collection, as its
        /// generations declare them (`typeahead admin reindex` builds them so); sorted.
        public var filterableAttributes: [String]
        public init(name: String, shards: [Shard], filterableAttributes: [String] = []) {
            self.name = name
            self.shards = shards
            self.filterableAttributes = filterableAttributes
        }
    }

    public struct Shard: Sendable, Hashable {
        public var name: String
        /// `host:port` of each replica.
        public var replicas: [Endpoint]
        public init(name: String, replicas: [Endpoint]) {
            self.name = name
            self.replicas = replicas
        }
    }

    /// How the coordinator behaves; every value has a default.
    public struct Settings: Sendable, Hashable {
        /// The deadline of a Suggest whose client sent none (`grpc-timeout`).
        public var suggestDeadline: Duration = .milliseconds(250)
        /// The deadline of a Search whose client sent none.
        public var searchDeadline: Duration = .seconds(2)
        /// What the coordinator keeps of a deadline for itself (merging, presenting, answering),
        /// besides 5% of the time left: shard requests get the client's deadline minus both.
        public var deadlineMargin: Duration = .milliseconds(5)
        /// When a replica has not answered after this long, the same request goes to another
        /// replica and the first answer wins. nil: the shard's recent 95th percentile (``hedgeFloor`` at least).
        public var hedgeDelay: Duration? = nil
        /// The smallest automatic hedging delay (a p95 of a few µs would hedge everything).
        public var hedgeFloor: Duration = .milliseconds(2)
        /// Hedged requests allowed, as a share of all shard requests (a token bucket), so a slow
        /// cluster is not made slower by doubling its load.
        public var hedgeBudget: Double = 0.1
        /// How often each replica's health and generations are checked.
        public var healthInterval: Duration = .milliseconds(500)
        /// A health check that takes longer fails.
        public var healthTimeout: Duration = .milliseconds(500)
        /// Consecutive failed checks or calls after which a replica is down.
        public var failuresToMarkDown: Int = 2
        /// A TCP connect that takes longer fails.
        public var connectTimeout: Duration = .seconds(1)
        /// Reconnect delays double from the first to the last.
        public var reconnectBackoff: ClosedRange<Duration> = .milliseconds(50) ... .seconds(5)
        /// The admin token file: the coordinator's admin methods require it, and the coordinator and
        /// `typeahead admin` send it to nodes. nil: `--token-file` or `TYPEAHEAD_ADMIN_TOKEN`.
        public var tokenFile: String? = nil
        /// If set, reads on the coordinator require this token (and the coordinator sends it to nodes).
        public var readTokenFile: String? = nil
        /// If set, the coordinator and `typeahead admin` reach the nodes over TLS, trusting only
        /// this CA (PEM): the nodes serve HTTPS (`typeahead node --tls-cert --tls-key`).
        public var nodeCertificateAuthorityFile: String? = nil
        /// With ``nodeKeyFile``: the certificate presented to nodes that require one (mutual TLS:
        /// `typeahead node --tls-client-ca`).
        public var nodeCertificateFile: String? = nil
        public var nodeKeyFile: String? = nil

        public init() {}
    }

    public var name: String
    /// Every collection, in file order: the top-level `shards` first (as `default`), then
    /// `collections`.
    public var collections: [Collection]
    /// The name of the collection a request without `collection` reads; one of ``collections``.
    public var defaultCollection: String
    /// What a request's `scope` may name, in file order; may be empty.
    public var scopes: [Scope] = []
    public var coordinators: [Endpoint]
    public var settings: Settings

    /// A cluster of one collection, named `default`.
    public init(name: String = "typeahead", shards: [Shard], coordinators: [Endpoint] = [], settings: Settings = .init()) {
        self.init(name: name, collections: [Collection(name: CollectionName.default, shards: shards)], coordinators: coordinators,
                  settings: settings)
    }

    /// A cluster of several collections; `defaultCollection` nil: the first.
    public init(name: String = "typeahead", collections: [Collection], defaultCollection: String? = nil, coordinators: [Endpoint] = [],
                settings: Settings = .init()) {
        precondition(!collections.isEmpty, "a cluster has at least one collection")
        self.name = name
        self.collections = collections
        self.defaultCollection = defaultCollection ?? collections[0].name
        self.coordinators = coordinators
        self.settings = settings
    }

    /// The collection named `name`, if the cluster has it.
    public func collection(named name: String) -> Collection? {
        collections.first { $0.name == name }
    }

    /// The default collection's index in ``collections``.
    public var defaultIndex: Int { collections.firstIndex { $0.name == defaultCollection } ?? 0 }

    /// The default collection's shards: the whole cluster when it holds one collection.
    public var shards: [Shard] {
        get { collections[defaultIndex].shards }
        set { collections[defaultIndex].shards = newValue }
    }

    /// Every replica address of every collection, each once (a node serving several collections
    /// is one address), in file order.
    public var replicas: [Endpoint] {
        var seen = Set<Endpoint>()
        return collections.flatMap { $0.shards.flatMap(\.replicas) }.filter { seen.insert($0).inserted }
    }

    // MARK: Reading

    /// Reads and validates a cluster file; relative paths in it become relative to its directory.
    ///
    /// - Throws: ``ClusterFileError`` naming the file and the JSON path of the problem.
    public static func load(path: String) throws(ClusterFileError) -> ClusterFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ClusterFileError(file: path, path: "", problem: "cannot be read")
        }
        var file = try parse(Array(data), name: path)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        func resolve(_ value: String?) -> String? {
            guard let value, !value.hasPrefix("/") else { return value }
            return directory + "/" + value
        }
        file.settings.tokenFile = resolve(file.settings.tokenFile)
        file.settings.readTokenFile = resolve(file.settings.readTokenFile)
        file.settings.nodeCertificateAuthorityFile = resolve(file.settings.nodeCertificateAuthorityFile)
        file.settings.nodeCertificateFile = resolve(file.settings.nodeCertificateFile)
        file.settings.nodeKeyFile = resolve(file.settings.nodeKeyFile)
        return file
    }

    /// Parses and validates the JSON of a cluster file (`name` labels the errors).
    public static func parse(_ bytes: [UInt8], name: String = "cluster file") throws(ClusterFileError) -> ClusterFile {
        func fail(_ path: String, _ problem: String) -> ClusterFileError {
            ClusterFileError(file: name, path: path, problem: problem)
        }
        let root: [String: Any]
        do {
            guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                throw fail("", "must be a JSON object")
            }
            root = object
        } catch let error as ClusterFileError {
            throw error
        } catch {
            throw fail("", "is not valid JSON")
        }
        try allowKeys(root, ["name", "shards", "filterableAttributes", "collections", "defaultCollection", "scopes", "coordinators",
                             "settings"], at: "", fail)
        var file = ClusterFile(shards: [])
        if let name = root["name"] {
            guard let text = name as? String, !text.isEmpty else { throw fail("name", "must be a non-empty string") }
            file.name = text
        }
        file.collections = []
        if root["shards"] != nil || root["collections"] == nil {
            file.collections.append(Collection(name: CollectionName.default, shards: try parseShards(root["shards"], at: "shards", fail),
                                               filterableAttributes: try parseFilterable(root["filterableAttributes"], at: "filterableAttributes", fail)))
        } else if root["filterableAttributes"] != nil {
            throw fail("filterableAttributes", "belongs to the top-level shards; give each of collections its own")
        }
        if let collections = root["collections"] {
            guard let list = collections as? [Any], !list.isEmpty else {
                throw fail("collections", "must be a non-empty array of {\"name\", \"shards\"}")
            }
            for (index, item) in list.enumerated() {
                let at = "collections[\(index)]"
                guard let collection = item as? [String: Any] else { throw fail(at, "must be an object with name and shards") }
                try allowKeys(collection, ["name", "shards", "filterableAttributes"], at: at, fail)
                guard let name = collection["name"] as? String else { throw fail("\(at).name", "must be a string") }
                if let problem = CollectionName.problem(name) { throw fail("\(at).name", problem) }
                if file.collection(named: name) != nil {
                    let top = name == CollectionName.default && root["shards"] != nil ? " (the top-level shards are the collection \"default\")" : ""
                    throw fail("\(at).name", "\"\(name)\" names two collections\(top)")
                }
                file.collections.append(Collection(name: name, shards: try parseShards(collection["shards"], at: "\(at).shards", fail),
                                                   filterableAttributes: try parseFilterable(collection["filterableAttributes"],
                                                                                             at: "\(at).filterableAttributes", fail)))
            }
        }
        file.defaultCollection = file.collections[0].name
        if let value = root["defaultCollection"] {
            guard let name = value as? String else { throw fail("defaultCollection", "must be a string") }
            guard file.collection(named: name) != nil else {
                throw fail("defaultCollection", "\"\(name)\" is not a collection of this file (collections: "
                                                + file.collections.map(\.name).joined(separator: ", ") + ")")
            }
            file.defaultCollection = name
        }
        if let scopes = root["scopes"] { file.scopes = try parseScopes(scopes, collections: file.collections, fail) }
        if let coordinators = root["coordinators"] {
            guard let list = coordinators as? [Any] else { throw fail("coordinators", "must be an array of \"host:port\"") }
            for (index, item) in list.enumerated() {
                guard let text = item as? String, let endpoint = Endpoint(text) else {
                    throw fail("coordinators[\(index)]", "must be \"host:port\" with a port from 1 to 65535")
                }
                file.coordinators.append(endpoint)
            }
        }
        if let settings = root["settings"] {
            guard let object = settings as? [String: Any] else { throw fail("settings", "must be an object") }
            file.settings = try Settings(object, fail)
        }
        return file
    }

    /// One collection's shards (at `path`: `shards`, `collections[1].shards`): a non-empty array
    /// of `{name, replicas}`, names unique, 1 to 16 replicas each, addresses unique within it.
    /// A collection's `filterableAttributes`: absent is none; else distinct names by the
    /// collection-name rule (the token kind rule), not "category", at most 32; returned sorted.
    private static func parseFilterable(_ value: Any?, at path: String, _ fail: (String, String) -> ClusterFileError)
        throws(ClusterFileError) -> [String] {
        guard let value else { return [] }
        guard let names = value as? [String], names.count <= 32 else {
            throw fail(path, "must be an array of at most 32 attribute keys")
        }
        for (index, name) in names.enumerated() {
            if let problem = CollectionName.problem(name) { throw fail("\(path)[\(index)]", problem) }
            if name == "category" { throw fail("\(path)[\(index)]", "\"category\" is reserved (categories are always tokens)") }
            if names[..<index].contains(name) { throw fail("\(path)[\(index)]", "\"\(name)\" is named twice") }
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    private static func parseShards(_ value: Any?, at path: String, _ fail: (String, String) -> ClusterFileError)
        throws(ClusterFileError) -> [Shard] {
        guard let shards = value as? [Any], !shards.isEmpty else {
            throw fail(path, "must be a non-empty array of shards")
        }
        var names = Set<String>()
        var addresses = Set<Endpoint>()
        var parsed: [Shard] = []
        for (index, item) in shards.enumerated() {
            let at = "\(path)[\(index)]"
            guard let shard = item as? [String: Any] else { throw fail(at, "must be an object with name and replicas") }
            try allowKeys(shard, ["name", "replicas"], at: at, fail)
            guard let shardName = shard["name"] as? String, !shardName.isEmpty else { throw fail("\(at).name", "must be a non-empty string") }
            guard names.insert(shardName).inserted else { throw fail("\(at).name", "\"\(shardName)\" names two shards") }
            guard let replicas = shard["replicas"] as? [Any], (1...16).contains(replicas.count) else {
                throw fail("\(at).replicas", "must list 1 to 16 replicas as \"host:port\"")
            }
            var endpoints: [Endpoint] = []
            for (r, replica) in replicas.enumerated() {
                guard let text = replica as? String, let endpoint = Endpoint(text) else {
                    throw fail("\(at).replicas[\(r)]", "must be \"host:port\" with a port from 1 to 65535")
                }
                guard addresses.insert(endpoint).inserted else { throw fail("\(at).replicas[\(r)]", "\(text) is listed twice") }
                endpoints.append(endpoint)
            }
            parsed.append(Shard(name: shardName, replicas: endpoints))
        }
        return parsed
    }

    static func allowKeys(_ object: [String: Any], _ allowed: Set<String>, at path: String,
                                  _ fail: (String, String) -> ClusterFileError) throws(ClusterFileError) {
        for key in object.keys.sorted() where !allowed.contains(key) {
            let known = allowed.sorted().joined(separator: ", ")
            throw fail(path.isEmpty ? key : "\(path).\(key)", "is not a known key (known: \(known))")
        }
    }
}
