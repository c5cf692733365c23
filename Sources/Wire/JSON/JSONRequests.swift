import Foundation

/// The client-facing requests in JSON: the Connect protocol's unary POST bodies (proto3 JSON
/// names) and the GET conveniences' query strings, turned into the same wire messages gRPC
/// carries — so one method handler, and one validation of limits and enums (Wire's conversions),
/// serves every protocol.
///
/// Unknown fields and wrong types are refused with a message naming them, since a silently ignored
/// misspelt field is a bug the caller never sees.
public enum JSONRequests {
    /// Most values (objects, arrays, strings, numbers, literals) a request body may hold: every
    /// field of the largest request with every token is under 200. Counted before parsing, so a
    /// body of many small values is refused at the cost of one pass over its bytes instead of
    /// being built into a tree (a 3.6 MB body of 100,000 tokens once took a node from 49 to 351 MB).
    public static let maximumValues = 1024
    /// Deepest nesting of objects and arrays (a request nests three deep).
    public static let maximumDepth = 8

    public static func object(_ body: [UInt8]) throws(GRPCStatus) -> [String: Any] {
        try checkShape(body)
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(body), options: [])
        } catch {
            throw GRPCStatus(.invalidArgument, "request body is not valid JSON")
        }
        guard let object = parsed as? [String: Any] else { throw GRPCStatus(.invalidArgument, "request body must be a JSON object") }
        return object
    }

    /// Refuses a body with more than ``maximumValues`` values or nested deeper than
    /// ``maximumDepth``, reading it once without allocating: commas, colons and opening brackets
    /// outside strings bound the number of values from above.
    static func checkShape(_ body: [UInt8]) throws(GRPCStatus) {
        var values = 1
        var depth = 0
        var inString = false
        var escaped = false
        for byte in body {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                values += 1
                guard depth <= maximumDepth else {
                    throw GRPCStatus(.invalidArgument, "request body nests deeper than \(maximumDepth) levels")
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ","), UInt8(ascii: ":"): values += 1
            default: continue
            }
            guard values <= maximumValues else {
                throw GRPCStatus(.invalidArgument, "request body holds more than \(maximumValues) JSON values; no request needs that many")
            }
        }
    }

    private static func check(_ object: [String: Any], allowed: Set<String>, in message: String) throws(GRPCStatus) {
        for key in object.keys.sorted() where !allowed.contains(key) {
            throw GRPCStatus(.invalidArgument, "unknown field \"\(key)\" in \(message)")
        }
    }

    private static func string(_ value: Any?, _ field: String) throws(GRPCStatus) -> String? {
        guard let value else { return nil }
        guard let string = value as? String else { throw GRPCStatus(.invalidArgument, "\(field) must be a string") }
        return string
    }

    /// A JSON number or a quoted integer (proto3 JSON allows both for integers), within `range`.
    private static func integer<T: FixedWidthInteger>(_ value: Any?, _ field: String, as type: T.Type) throws(GRPCStatus) -> T? {
        guard let value else { return nil }
        var parsed: T?
        if let number = value as? NSNumber, !isBoolean(number) {
            let double = number.doubleValue
            if double.rounded() == double, double >= Double(T.min), double <= Double(T.max) {
                parsed = number.int64Value >= 0 ? T(exactly: number.uint64Value) : T(exactly: number.int64Value)
            }
        } else if let text = value as? String {
            parsed = T(text)
        }
        guard let parsed else { throw GRPCStatus(.invalidArgument, "\(field) must be a whole number from \(T.min) to \(T.max)") }
        return parsed
    }

    private static func bool(_ value: Any?, _ field: String) throws(GRPCStatus) -> Bool? {
        guard let value else { return nil }
        guard let number = value as? NSNumber, isBoolean(number) else {
            throw GRPCStatus(.invalidArgument, "\(field) must be true or false")
        }
        return number.boolValue
    }

    /// JSON true/false arrive as NSNumber too; their Objective-C type code is "c".
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }

    private static func tokens(_ value: Any?) throws(GRPCStatus) -> [Typeahead_V1_SearchToken] {
        guard let value else { return [] }
        guard let list = value as? [Any] else { throw GRPCStatus(.invalidArgument, "tokens must be an array") }
        var tokens: [Typeahead_V1_SearchToken] = []
        for item in list {
            guard let object = item as? [String: Any] else { throw GRPCStatus(.invalidArgument, "each token must be an object") }
            try check(object, allowed: ["kind", "value"], in: "token")
            tokens.append(Typeahead_V1_SearchToken(kind: try string(object["kind"], "token.kind") ?? "",
                                                   value: try string(object["value"], "token.value") ?? ""))
        }
        return tokens
    }

    private static func typos(_ value: Any?) throws(GRPCStatus) -> Typeahead_V1_Typos {
        guard let text = try string(value, "typos") else { return .unspecified }
        switch text {
        case "auto", "TYPOS_AUTO": return .auto
        case "TYPOS_UNSPECIFIED": return .unspecified
        case "off", "TYPOS_OFF": return .off
        default: throw GRPCStatus(.invalidArgument, "typos must be \"auto\" or \"off\", got \"\(text)\"")
        }
    }

    private static func sort(_ text: String?) throws(GRPCStatus) -> Typeahead_V1_SearchRequest.Sort {
        switch text {
        case nil, "SORT_UNSPECIFIED": return .unspecified
        case "relevance", "SORT_RELEVANCE": return .relevance
        case "weight", "SORT_WEIGHT": return .weight
        case let other?: throw GRPCStatus(.invalidArgument, "sort must be \"relevance\" or \"weight\", got \"\(other)\"")
        }
    }

    /// `typeahead.v1.SuggestRequest` from its JSON form.
    public static func suggest(_ object: [String: Any]) throws(GRPCStatus) -> Typeahead_V1_SuggestRequest {
        try check(object, allowed: ["text", "tokens", "limits", "typos", "dedupe", "session", "revision", "requireAllShards"],
                  in: "SuggestRequest")
        var request = Typeahead_V1_SuggestRequest(text: try string(object["text"], "text") ?? "")
        request.tokens = try tokens(object["tokens"])
        request.typos = try typos(object["typos"])
        request.dedupe = try bool(object["dedupe"], "dedupe")
        if let limitsValue = object["limits"] {
            guard let limits = limitsValue as? [String: Any] else { throw GRPCStatus(.invalidArgument, "limits must be an object") }
            try check(limits, allowed: ["entries", "categories", "completions"], in: "limits")
            request.limits = Typeahead_V1_SuggestLimits(entries: try integer(limits["entries"], "limits.entries", as: UInt32.self),
                                                        categories: try integer(limits["categories"], "limits.categories", as: UInt32.self),
                                                        completions: try integer(limits["completions"], "limits.completions", as: UInt32.self))
        }
        request.session = try string(object["session"], "session") ?? ""
        request.revision = try integer(object["revision"], "revision", as: UInt64.self) ?? 0
        request.requireAllShards = try bool(object["requireAllShards"], "requireAllShards") ?? false
        return request
    }

    /// `typeahead.v1.SearchRequest` from its JSON form.
    public static func search(_ object: [String: Any]) throws(GRPCStatus) -> Typeahead_V1_SearchRequest {
        try check(object, allowed: ["text", "tokens", "pageSize", "pageToken", "sort", "facets", "typos", "requireAllShards"],
                  in: "SearchRequest")
        var request = Typeahead_V1_SearchRequest(text: try string(object["text"], "text") ?? "")
        request.tokens = try tokens(object["tokens"])
        request.typos = try typos(object["typos"])
        request.pageSize = try integer(object["pageSize"], "pageSize", as: UInt32.self) ?? 0
        request.pageToken = try string(object["pageToken"], "pageToken") ?? ""
        request.facets = try bool(object["facets"], "facets")
        request.sort = try sort(try string(object["sort"], "sort"))
        request.requireAllShards = try bool(object["requireAllShards"], "requireAllShards") ?? false
        return request
    }

    /// The query string of `/v1/suggest?q=…&limit=…&categories=…&completions=…&typos=off&dedupe=false&token=category:NAME`.
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
            case "typos": request.typos = try typos(value)
            case "dedupe": request.dedupe = try flag(value, "dedupe")
            case "token": request.tokens.append(try token(value))
            case "session": request.session = value
            case "revision": request.revision = try number(value, "revision")
            case "requireAllShards": request.requireAllShards = try flag(value, "requireAllShards")
            default: throw GRPCStatus(.invalidArgument, "unknown query parameter \"\(item.name)\"")
            }
        }
        if limits != Typeahead_V1_SuggestLimits() { request.limits = limits }
        return request
    }

    /// The query string of `/v1/search?q=…&pageSize=…&pageToken=…&sort=weight&facets=false&token=…`.
    public static func search(query items: [URLQueryItem]) throws(GRPCStatus) -> Typeahead_V1_SearchRequest {
        var request = Typeahead_V1_SearchRequest()
        for item in items {
            let value = item.value ?? ""
            switch item.name {
            case "q": request.text = value
            case "pageSize": request.pageSize = try number(value, "pageSize")
            case "pageToken": request.pageToken = value
            case "typos": request.typos = try typos(value)
            case "facets": request.facets = try flag(value, "facets")
            case "token": request.tokens.append(try token(value))
            case "sort": request.sort = try sort(value)
            case "requireAllShards": request.requireAllShards = try flag(value, "requireAllShards")
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
            throw GRPCStatus(.invalidArgument, "token must look like category:NAME, got \"\(text)\"")
        }
        return Typeahead_V1_SearchToken(kind: parts[0], value: parts[1])
    }
}
