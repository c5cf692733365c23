import Foundation
import JSONTree

/// How one method speaks JSON: the Connect protocol's unary POST body and, for a method with a GET
/// form, the query string, each read straight into the typed request; and the typed response
/// written straight to JSON text. A server registers a method with its mapping
/// (`RPCMethod.unary(_:access:json:_:)`); the transport knows no product messages.
///
/// ```swift
/// .unary(Typeahead_V1_TypeaheadService.suggest, access: .read, json: .suggest) { request, context, reply in … }
/// ```
public struct JSONMapping<Request: ProtoMessage, Response: ProtoMessage>: Sendable {
    /// The GET path that serves the method from a query string (`/v1/suggest`), if any.
    public let getPath: String?
    public let request: @Sendable (_ body: JSONNode) throws(GRPCStatus) -> Request
    /// Reads a GET query string's parameters; nil when there is no ``getPath``.
    public let query: (@Sendable (_ items: [URLQueryItem]) throws(GRPCStatus) -> Request)?
    /// The response's JSON text, ending in a line feed.
    public let response: @Sendable (Response) -> [UInt8]
    /// The largest JSON body accepted (the server's message limit applies too): a request's
    /// JSON is small, and a body is refused before it is parsed, so parsing is bounded by this.
    public var maximumBodyBytes = 64 << 10

    public init(getPath: String?, request: @escaping @Sendable (JSONNode) throws(GRPCStatus) -> Request,
                query: (@Sendable ([URLQueryItem]) throws(GRPCStatus) -> Request)?, response: @escaping @Sendable (Response) -> [UInt8]) {
        precondition((getPath == nil) == (query == nil), "a GET path needs a query reader, and only then")
        self.getPath = getPath
        self.request = request
        self.query = query
        self.response = response
    }
}

extension JSONMapping where Request == Typeahead_V1_SuggestRequest, Response == Typeahead_V1_SuggestResponse {
    /// `typeahead.v1.Typeahead/Suggest`: POST JSON, and `GET /v1/suggest?q=…`.
    public static var suggest: Self {
        Self(getPath: "/v1/suggest", request: { body throws(GRPCStatus) in try JSONRequests.suggest(body) },
             query: { items throws(GRPCStatus) in try JSONRequests.suggest(query: items) }, response: { ResponseJSON.suggest($0) })
    }
}

extension JSONMapping where Request == Typeahead_V1_SearchRequest, Response == Typeahead_V1_SearchResponse {
    /// `typeahead.v1.Typeahead/Search`: POST JSON, and `GET /v1/search?q=…`.
    public static var search: Self {
        Self(getPath: "/v1/search", request: { body throws(GRPCStatus) in try JSONRequests.search(body) },
             query: { items throws(GRPCStatus) in try JSONRequests.search(query: items) }, response: { ResponseJSON.search($0) })
    }
}

extension JSONMapping where Request == Typeahead_V1_DescribeRequest, Response == Typeahead_V1_DescribeResponse {
    /// `typeahead.v1.Typeahead/Describe`: POST JSON (`{}`), and `GET /v1/describe`.
    public static var describe: Self {
        Self(getPath: "/v1/describe", request: { body throws(GRPCStatus) in try JSONRequests.describe(body) },
             query: { items throws(GRPCStatus) in try JSONRequests.describe(query: items) }, response: { ResponseJSON.describe($0) })
    }
}
