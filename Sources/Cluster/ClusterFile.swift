import Foundation

/// A cluster's layout and settings, as an operator writes them in a JSON file (a sample:
/// `deploy/cluster/cluster-3x2.json`).
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
/// - `shards`, in order: the i-th shard holds the entries that ``ShardAssignment`` places in shard
///   i, so the order must never change (append to grow; see the runbook). Names are unique; each
///   shard has 1 to 16 replicas, `host:port`, unique across the cluster.
/// - `coordinators`: optional, the coordinators' addresses; `typeahead admin` tells them about a
///   new generation so they switch at once instead of at their next health check.
/// - `settings`: every key optional (see ``Settings`` for meanings and defaults). Unknown keys
///   anywhere are refused, so a misspelt setting never silently keeps its default.
///
/// Relative paths (token files) are relative to the cluster file's directory.
public struct ClusterFile: Sendable, Hashable {
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
    public var shards: [Shard]
    public var coordinators: [Endpoint]
    public var settings: Settings

    public init(name: String = "typeahead", shards: [Shard], coordinators: [Endpoint] = [], settings: Settings = .init()) {
        self.name = name
        self.shards = shards
        self.coordinators = coordinators
        self.settings = settings
    }

    /// Every replica of every shard.
    public var replicas: [Endpoint] { shards.flatMap(\.replicas) }

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
        try allowKeys(root, ["name", "shards", "coordinators", "settings"], at: "", fail)
        var file = ClusterFile(shards: [])
        if let name = root["name"] {
            guard let text = name as? String, !text.isEmpty else { throw fail("name", "must be a non-empty string") }
            file.name = text
        }
        guard let shards = root["shards"] as? [Any], !shards.isEmpty else {
            throw fail("shards", "must be a non-empty array of shards")
        }
        var names = Set<String>()
        var addresses = Set<Endpoint>()
        for (index, item) in shards.enumerated() {
            let at = "shards[\(index)]"
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
            file.shards.append(Shard(name: shardName, replicas: endpoints))
        }
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

    private static func allowKeys(_ object: [String: Any], _ allowed: Set<String>, at path: String,
                                  _ fail: (String, String) -> ClusterFileError) throws(ClusterFileError) {
        for key in object.keys.sorted() where !allowed.contains(key) {
            let known = allowed.sorted().joined(separator: ", ")
            throw fail(path.isEmpty ? key : "\(path).\(key)", "is not a known key (known: \(known))")
        }
    }
}

extension ClusterFile.Settings {
    static let keys: Set<String> = ["suggestDeadlineMs", "searchDeadlineMs", "deadlineMarginMs", "hedgeDelayMs", "hedgeFloorMs",
                                    "hedgeBudgetPercent", "healthIntervalMs", "healthTimeoutMs", "failuresToMarkDown",
                                    "connectTimeoutMs", "reconnectInitialMs", "reconnectMaximumMs", "tokenFile", "readTokenFile",
                                    "nodeCertificateAuthorityFile", "nodeCertificateFile", "nodeKeyFile"]

    init(_ object: [String: Any], _ fail: (String, String) -> ClusterFileError) throws(ClusterFileError) {
        self.init()
        for key in object.keys.sorted() where !Self.keys.contains(key) {
            throw fail("settings.\(key)", "is not a known setting (known: \(Self.keys.sorted().joined(separator: ", ")))")
        }
        func milliseconds(_ key: String, _ range: ClosedRange<Int>) throws(ClusterFileError) -> Duration? {
            guard let value = object[key] else { return nil }
            guard let number = value as? NSNumber, String(cString: number.objCType) != "c",
                  number.doubleValue.rounded() == number.doubleValue, range.contains(number.intValue) else {
                throw fail("settings.\(key)", "must be a whole number of milliseconds from \(range.lowerBound) to \(range.upperBound)")
            }
            return .milliseconds(number.intValue)
        }
        func path(_ key: String) throws(ClusterFileError) -> String? {
            guard let value = object[key] else { return nil }
            guard let text = value as? String, !text.isEmpty else { throw fail("settings.\(key)", "must be a file path") }
            return text
        }
        if let value = try milliseconds("suggestDeadlineMs", 1...60_000) { suggestDeadline = value }
        if let value = try milliseconds("searchDeadlineMs", 1...600_000) { searchDeadline = value }
        if let value = try milliseconds("deadlineMarginMs", 0...10_000) { deadlineMargin = value }
        if let value = object["hedgeDelayMs"] {
            if let text = value as? String {
                guard text == "p95" else { throw fail("settings.hedgeDelayMs", "must be \"p95\" or a whole number of milliseconds") }
                hedgeDelay = nil
            } else {
                hedgeDelay = try milliseconds("hedgeDelayMs", 0...60_000)
            }
        }
        if let value = try milliseconds("hedgeFloorMs", 0...60_000) { hedgeFloor = value }
        if let value = object["hedgeBudgetPercent"] {
            guard let number = value as? NSNumber, String(cString: number.objCType) != "c", (0...100).contains(number.doubleValue) else {
                throw fail("settings.hedgeBudgetPercent", "must be a number from 0 to 100")
            }
            hedgeBudget = number.doubleValue / 100
        }
        if let value = try milliseconds("healthIntervalMs", 10...600_000) { healthInterval = value }
        if let value = try milliseconds("healthTimeoutMs", 1...60_000) { healthTimeout = value }
        if let value = object["failuresToMarkDown"] {
            guard let number = value as? NSNumber, String(cString: number.objCType) != "c", (1...100).contains(number.intValue),
                  number.doubleValue.rounded() == number.doubleValue else {
                throw fail("settings.failuresToMarkDown", "must be a whole number from 1 to 100")
            }
            failuresToMarkDown = number.intValue
        }
        if let value = try milliseconds("connectTimeoutMs", 1...60_000) { connectTimeout = value }
        let initial = try milliseconds("reconnectInitialMs", 1...600_000) ?? reconnectBackoff.lowerBound
        let maximum = try milliseconds("reconnectMaximumMs", 1...600_000) ?? max(initial, reconnectBackoff.upperBound)
        guard initial <= maximum else { throw fail("settings.reconnectMaximumMs", "must not be below reconnectInitialMs") }
        reconnectBackoff = initial ... maximum
        tokenFile = try path("tokenFile")
        readTokenFile = try path("readTokenFile")
        nodeCertificateAuthorityFile = try path("nodeCertificateAuthorityFile")
        nodeCertificateFile = try path("nodeCertificateFile")
        nodeKeyFile = try path("nodeKeyFile")
        guard (nodeCertificateFile == nil) == (nodeKeyFile == nil) else {
            throw fail("settings.nodeCertificateFile", "and settings.nodeKeyFile go together (a certificate needs its key)")
        }
        guard nodeCertificateFile == nil || nodeCertificateAuthorityFile != nil else {
            throw fail("settings.nodeCertificateFile", "needs settings.nodeCertificateAuthorityFile (the CA that signed the nodes)")
        }
    }
}

/// A `host:port` address (a name or a numeric IPv4/IPv6 address; IPv6 in brackets).
public struct Endpoint: Sendable, Hashable, CustomStringConvertible, Comparable {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port` or `[v6]:port`; nil when malformed or the port is outside 1…65535.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(" ") else { return nil }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public static func < (a: Endpoint, b: Endpoint) -> Bool { (a.host, a.port) < (b.host, b.port) }
}

/// A cluster file that cannot be used, with where and why.
public struct ClusterFileError: Error, Sendable, CustomStringConvertible {
    public var file: String
    /// The JSON path of the problem (`shards[2].replicas[0]`), empty for the whole file.
    public var path: String
    public var problem: String

    public var description: String { path.isEmpty ? "\(file): \(problem)" : "\(file): \(path) \(problem)" }
}
