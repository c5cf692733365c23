/// The rules for a collection's name, in one place for every part that reads one: the node and
/// the coordinator routing a request, the cluster file, `typeahead node --collection`, `typeahead
/// local --catalog`, `typeahead admin --collection`.
///
/// A cluster serves several named **collections**, each a catalog with its own shards,
/// generations and shard assignment. A name is 1 to 64 bytes of `[a-z0-9_-]`: it appears in
/// URLs (`/v1/suggest?collection=…`), file names and metric labels unescaped, and compares as
/// bytes. A request without one (`collection` empty) reads the server's default collection,
/// so requests written before collections existed keep their meaning.
///
/// ```swift
/// CollectionName.problem("products")     // nil: valid
/// CollectionName.problem("Products")     // "must be 1 to 64 bytes of a-z, 0-9, _ and -, got \"Products\""
/// try CollectionName.validate("bad name") // throws INVALID_ARGUMENT, reason INVALID_COLLECTION_NAME
/// ```
public enum CollectionName {
    /// The name of the collection a node's `--dir` holds and a cluster file's top-level `shards`
    /// describe: what a request without a collection reads unless configured otherwise.
    public static let `default` = "default"
    /// The longest name, in bytes.
    public static let maximumBytes = 64

    /// The ErrorInfo reasons of the two refusals (domain `typeahead`, metadata `collection`).
    public static let invalidReason = "INVALID_COLLECTION_NAME"
    public static let notFoundReason = "COLLECTION_NOT_FOUND"

    /// Nil when `name` is a valid collection name; otherwise what is wrong, for a message that
    /// names where the name came from. O(length); allocates only for the message.
    public static func problem(_ name: String) -> String? {
        var count = 0
        for byte in name.utf8 {
            count += 1
            guard count <= maximumBytes, isAllowed(byte) else { return rule(name) }
        }
        return count == 0 ? rule(name) : nil
    }

    /// Throws INVALID_ARGUMENT (reason ``invalidReason``) unless `name` is a valid name. `field`
    /// names where it came from in the message (`collection`).
    public static func validate(_ name: String, field: String = "collection") throws(GRPCStatus) {
        guard let problem = problem(name) else { return }
        throw GRPCStatus(.invalidArgument, "\(field) \(problem)",
                         errorInfo: Google_Rpc_ErrorInfo(reason: invalidReason, domain: "typeahead", metadata: ["collection": String(name.prefix(80))]))
    }

    /// The NOT_FOUND status of a valid name this server does not serve, listing what it serves.
    public static func notFound(_ name: String, served: [String]) -> GRPCStatus {
        GRPCStatus(.notFound, "collection \"\(name)\" is not served here (collections: \(served.joined(separator: ", ")))",
                   errorInfo: Google_Rpc_ErrorInfo(reason: notFoundReason, domain: "typeahead", metadata: ["collection": name]))
    }

    /// What a server serves for collection `name`: `fallback` (its default collection) for an
    /// empty name, the first of `served` whose `named` is `name`, else INVALID_ARGUMENT for a name
    /// that breaks the rule or NOT_FOUND naming it. The one routing rule of the node and the
    /// coordinator.
    ///
    /// Why a scan: a server holds a handful of collections, and comparing a short name with each
    /// costs less than hashing it, allocates nothing, and an empty name (every request written
    /// before collections) costs one length test.
    ///
    /// ```swift
    /// let services = try CollectionName.resolve(request.collection, among: all, default: all[0]) { $0.name }
    /// ```
    @inlinable
    public static func resolve<Served>(_ name: String, among served: [Served], default fallback: Served,
                                       named: (Served) -> String) throws(GRPCStatus) -> Served {
        if name.isEmpty { return fallback }
        for candidate in served where named(candidate) == name { return candidate }
        try validate(name)
        throw notFound(name, served: served.map(named))
    }

    /// `[a-z0-9_-]`.
    @inline(__always)
    static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): true
        default: false
        }
    }

    private static func rule(_ name: String) -> String {
        let shown = name.utf8.count > 80 ? String(decoding: name.utf8.prefix(80), as: UTF8.self) + "…" : name
        return "must be 1 to \(maximumBytes) bytes of a-z, 0-9, _ and -, got \"\(shown)\""
    }
}
