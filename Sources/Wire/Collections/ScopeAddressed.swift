/// A client request that may name a **scope** (a cluster file's set of collections searched at
/// once) instead of a collection: Suggest and Search.
///
/// The rules every server applies before routing, in one place (``checkAddress()``): a request
/// names a collection or a scope, never both (both would be ambiguous: is the collection one of
/// the scope's, or instead of it?), and a scope's name follows ``CollectionName``'s rule. Only a
/// coordinator holds scopes (they are a cluster file's); a node refuses them with
/// ``notServedByNode(_:)``.
///
/// ```swift
/// var request = Typeahead_V1_SuggestRequest(text: "sh")
/// request.scope = "all"
/// try request.checkAddress()          // fine
/// request.collection = "products"
/// try request.checkAddress()          // INVALID_ARGUMENT, reason COLLECTION_AND_SCOPE
/// ```
public protocol ScopeAddressed: CollectionAddressed {
    var scope: String { get set }
}

extension Typeahead_V1_SuggestRequest: ScopeAddressed {}
extension Typeahead_V1_SearchRequest: ScopeAddressed {}

/// The ErrorInfo reasons of scope refusals (domain `typeahead`, metadata `scope`).
public enum ScopeReason {
    /// A request named both a collection and a scope.
    public static let collectionAndScope = "COLLECTION_AND_SCOPE"
    /// A node was asked for a scope.
    public static let notServedByNode = "SCOPE_NOT_SERVED_BY_NODE"
    /// A valid scope name the cluster does not declare.
    public static let notFound = "SCOPE_NOT_FOUND"
}

extension ScopeAddressed {
    /// Throws INVALID_ARGUMENT when the request names both a collection and a scope, or a scope
    /// whose name breaks the rule. O(1) for a request without a scope.
    public func checkAddress() throws(GRPCStatus) {
        guard !scope.isEmpty else { return }
        guard collection.isEmpty else {
            throw GRPCStatus(.invalidArgument, "a request names a collection or a scope, not both (collection \"\(collection.prefix(80))\", "
                                               + "scope \"\(scope.prefix(80))\")",
                             errorInfo: Google_Rpc_ErrorInfo(reason: ScopeReason.collectionAndScope, domain: "typeahead",
                                                             metadata: ["scope": String(scope.prefix(80))]))
        }
        try CollectionName.validate(scope, field: "scope")
    }

    /// The INVALID_ARGUMENT a node answers to a scoped request.
    public static func notServedByNode(_ scope: String) -> GRPCStatus {
        GRPCStatus(.invalidArgument, "scope \"\(scope.prefix(80))\": scopes are a cluster's (its cluster file declares them); "
                                     + "a node serves collections only: ask the coordinator, or name a collection",
                   errorInfo: Google_Rpc_ErrorInfo(reason: ScopeReason.notServedByNode, domain: "typeahead",
                                                   metadata: ["scope": String(scope.prefix(80))]))
    }

    /// The NOT_FOUND of a valid scope name the cluster does not declare, listing those it does.
    public static func notFound(_ scope: String, declared: [String]) -> GRPCStatus {
        GRPCStatus(.notFound, "scope \"\(scope)\" is not declared by this cluster (scopes: "
                              + (declared.isEmpty ? "none" : declared.joined(separator: ", ")) + ")",
                   errorInfo: Google_Rpc_ErrorInfo(reason: ScopeReason.notFound, domain: "typeahead", metadata: ["scope": scope]))
    }
}
