import Foundation
import JSONTree

/// The client-facing requests in JSON: the Connect protocol's unary POST bodies (proto3 JSON
/// names) and the GET conveniences' query strings, turned into the same wire messages gRPC
/// carries — so one method handler, and one validation of limits and enums (Wire's conversions),
/// serves every protocol.
///
/// Unknown fields and wrong types are refused with a message naming them, since a silently ignored
/// misspelt field is a bug the caller never sees.
public enum JSONRequests {
    /// Most values (objects, arrays, strings, numbers, literals) a request body may hold: every
    /// field of the largest request with every token is under 200. Enforced while the body is
    /// parsed (`JSONTree`), so a body of many small values is refused at the cost of reading it, not
    /// of a tree of it (a 3.6 MB body of 100,000 tokens once took a node from 49 to 351 MB).
    public static let maximumValues = 1024
    /// Deepest nesting of objects and arrays (a request nests three deep).
    public static let maximumDepth = 8

    /// The request body's JSON: one object, within the limits above, no key twice.
    public static func object(_ body: [UInt8]) throws(GRPCStatus) -> JSONNode {
        let parsed: JSONNode
        do {
            parsed = try JSONTree.parse(body, maximumValues: maximumValues, maximumDepth: maximumDepth)
        } catch {
            throw GRPCStatus(.invalidArgument, "request body: \(error.description)")
        }
        guard case .object = parsed else { throw GRPCStatus(.invalidArgument, "request body must be a JSON object") }
        return parsed
    }

    /// `typeahead.v1.SuggestRequest` from its JSON form.
    public static func suggest(_ body: JSONNode) throws(GRPCStatus) -> Typeahead_V1_SuggestRequest {
        let object = try JSONFields(body, of: "SuggestRequest",
                                    ["text", "tokens", "limits", "typos", "dedupe", "session", "revision", "requireAllShards",
                                     "collection", "scope"])
        var request = Typeahead_V1_SuggestRequest(text: try object.string("text") ?? "")
        request.tokens = try tokens(object)
        request.typos = try object.enumeration("typos", text: typos(text:)) ?? .unspecified
        request.dedupe = try object.bool("dedupe")
        if let node = object["limits"] {
            let limits = try JSONFields(node, of: "limits", ["entries", "categories", "completions"], path: "limits.")
            request.limits = Typeahead_V1_SuggestLimits(entries: try limits.integer("entries", as: UInt32.self),
                                                        categories: try limits.integer("categories", as: UInt32.self),
                                                        completions: try limits.integer("completions", as: UInt32.self))
        }
        request.session = try object.string("session") ?? ""
        request.revision = try object.integer("revision", as: UInt64.self) ?? 0
        request.requireAllShards = try object.bool("requireAllShards") ?? false
        request.collection = try object.string("collection") ?? ""
        request.scope = try object.string("scope") ?? ""
        return request
    }

    /// `typeahead.v1.SearchRequest` from its JSON form.
    public static func search(_ body: JSONNode) throws(GRPCStatus) -> Typeahead_V1_SearchRequest {
        let object = try JSONFields(body, of: "SearchRequest",
                                    ["text", "tokens", "pageSize", "pageToken", "sort", "facets", "typos", "requireAllShards",
                                     "collection", "scope"])
        var request = Typeahead_V1_SearchRequest(text: try object.string("text") ?? "")
        request.tokens = try tokens(object)
        request.typos = try object.enumeration("typos", text: typos(text:)) ?? .unspecified
        request.pageSize = try object.integer("pageSize", as: UInt32.self) ?? 0
        request.pageToken = try object.string("pageToken") ?? ""
        request.facets = try object.bool("facets")
        request.sort = try object.enumeration("sort", text: sort(text:)) ?? .unspecified
        request.requireAllShards = try object.bool("requireAllShards") ?? false
        request.collection = try object.string("collection") ?? ""
        request.scope = try object.string("scope") ?? ""
        return request
    }

    /// `typeahead.v1.DescribeRequest` from its JSON form (no fields yet: an empty object).
    public static func describe(_ body: JSONNode) throws(GRPCStatus) -> Typeahead_V1_DescribeRequest {
        _ = try JSONFields(body, of: "DescribeRequest", [])
        return Typeahead_V1_DescribeRequest()
    }

    /// The query string of `GET /v1/describe`: no parameters.
    public static func describe(query items: [URLQueryItem]) throws(GRPCStatus) -> Typeahead_V1_DescribeRequest {
        if let item = items.first { throw GRPCStatus(.invalidArgument, "unknown query parameter \"\(item.name)\"") }
        return Typeahead_V1_DescribeRequest()
    }

    private static func tokens(_ object: JSONFields) throws(GRPCStatus) -> [Typeahead_V1_SearchToken] {
        guard let node = object["tokens"] else { return [] }
        guard case .array(let items) = node else { throw GRPCStatus(.invalidArgument, "tokens must be an array") }
        var tokens: [Typeahead_V1_SearchToken] = []
        for (index, item) in items.enumerated() {
            let token = try JSONFields(item, of: "token", ["kind", "value"], path: "tokens[\(index)].")
            tokens.append(Typeahead_V1_SearchToken(kind: try token.string("kind") ?? "", value: try token.string("value") ?? ""))
        }
        return tokens
    }

    private static func typos(text: String) throws(GRPCStatus) -> Typeahead_V1_Typos {
        switch text {
        case "auto", "TYPOS_AUTO": return .auto
        case "TYPOS_UNSPECIFIED": return .unspecified
        case "off", "TYPOS_OFF": return .off
        default: throw GRPCStatus(.invalidArgument, "typos must be \"auto\" or \"off\", got \"\(text)\"")
        }
    }

    private static func sort(text: String) throws(GRPCStatus) -> Typeahead_V1_SearchRequest.Sort {
        switch text {
        case "SORT_UNSPECIFIED": return .unspecified
        case "relevance", "SORT_RELEVANCE": return .relevance
        case "weight", "SORT_WEIGHT": return .weight
        default: throw GRPCStatus(.invalidArgument, "sort must be \"relevance\" or \"weight\", got \"\(text)\"")
        }
    }

    /// The query string of `/v1/suggest?q=…&limit=…&categories=…&completions=…&typos=off&dedupe=false&token=category:NAME&collection=NAME&scope=NAME`.
    /// The collection's (or scope's) name is checked where the request is routed, as for every protocol.
    public static func suggest(query items: [URLQueryItem]) throws(GRPCStatus) -> Typeahead_V1_SuggestRequest {
        var request = Typeahead_V1_SuggestRequest()
        var limits = Typeahead_V1_SuggestLimits()
        for item in items {
            let value = item.value ?? ""
            switch item.name {
            case "q": request.text = value
            case "limit": limits.entries = try number(value, "limit")
            case "categories": limits.categories = try number(value, "categories")
            case "completions": limits.completions = try number(value, "completions")
            case "typos": request.typos = try typos(text: value)
            case "dedupe": request.dedupe = try flag(value, "dedupe")
            case "token": request.tokens.append(try token(value))
            case "session": request.session = value
            case "revision": request.revision = try number(value, "revision")
            case "requireAllShards": request.requireAllShards = try flag(value, "requireAllShards")
            case "collection": request.collection = value
            case "scope": request.scope = value
            default: throw GRPCStatus(.invalidArgument, "unknown query parameter \"\(item.name)\"")
            }
        }
        if limits != Typeahead_V1_SuggestLimits() { request.limits = limits }
        return request
    }

    /// The query string of `/v1/search?q=…&pageSize=…&pageToken=…&sort=weight&facets=false&token=…&collection=NAME&scope=NAME`.
    public static func search(query items: [URLQueryItem]) throws(GRPCStatus) -> Typeahead_V1_SearchRequest {
        var request = Typeahead_V1_SearchRequest()
        for item in items {
            let value = item.value ?? ""
            switch item.name {
            case "q": request.text = value
            case "pageSize": request.pageSize = try number(value, "pageSize")
            case "pageToken": request.pageToken = value
            case "typos": request.typos = try typos(text: value)
            case "facets": request.facets = try flag(value, "facets")
            case "token": request.tokens.append(try token(value))
            case "sort": request.sort = try sort(text: value)
            case "requireAllShards": request.requireAllShards = try flag(value, "requireAllShards")
            case "collection": request.collection = value
            case "scope": request.scope = value
            default: throw GRPCStatus(.invalidArgument, "unknown query parameter \"\(item.name)\"")
            }
        }
        return request
    }

    private static func number<T: FixedWidthInteger>(_ text: String, _ name: String) throws(GRPCStatus) -> T {
        guard let value = T(text) else { throw GRPCStatus(.invalidArgument, "\(name) must be a whole number from \(T.min) to \(T.max), got \"\(text)\"") }
        return value
    }

    private static func flag(_ text: String, _ name: String) throws(GRPCStatus) -> Bool {
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default: throw GRPCStatus(.invalidArgument, "\(name) must be true or false, got \"\(text)\"")
        }
    }

    /// `kind:value`, e.g. `category:Garden`; the kind and value are checked like any token.
    private static func token(_ text: String) throws(GRPCStatus) -> Typeahead_V1_SearchToken {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else {
            throw GRPCStatus(.invalidArgument, "token must look like category:NAME or ATTRIBUTE:VALUE, got \"\(text)\"")
        }
        return Typeahead_V1_SearchToken(kind: parts[0], value: parts[1])
    }
}
