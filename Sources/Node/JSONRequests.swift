import Foundation
import Index
import Wire

/// Requests in JSON: the Connect protocol's unary POST bodies (proto3 JSON names) and the GET
/// conveniences' query strings. Unknown fields and wrong types are refused with a message naming
/// them, since a silently ignored misspelt field is a bug the caller never sees.
enum JSONRequests {
    static func object(_ body: [UInt8]) throws(GRPCStatus) -> [String: Any] {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(body), options: [])
        } catch {
            throw GRPCStatus(.invalidArgument, "request body is not valid JSON")
        }
        guard let object = parsed as? [String: Any] else { throw GRPCStatus(.invalidArgument, "request body must be a JSON object") }
        return object
    }

    private static func check(_ object: [String: Any], allowed: Set<String>, in message: String) throws(GRPCStatus) {
        for key in object.keys where !allowed.contains(key) {
            throw GRPCStatus(.invalidArgument, "unknown field \"\(key)\" in \(message)")
        }
    }

    private static func string(_ value: Any?, _ field: String) throws(GRPCStatus) -> String? {
        guard let value else { return nil }
        guard let string = value as? String else { throw GRPCStatus(.invalidArgument, "\(field) must be a string") }
        return string
    }

    private static func integer(_ value: Any?, _ field: String) throws(GRPCStatus) -> Int? {
        guard let value else { return nil }
        if let number = value as? NSNumber, !isBoolean(number), number.doubleValue == Double(number.intValue) {
            return number.intValue
        }
        if let text = value as? String, let number = Int(text) { return number }  // proto3 JSON allows quoted integers
        throw GRPCStatus(.invalidArgument, "\(field) must be an integer")
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

    private static func tokens(_ value: Any?) throws(GRPCStatus) -> [SearchToken] {
        guard let value else { return [] }
        guard let list = value as? [Any] else { throw GRPCStatus(.invalidArgument, "tokens must be an array") }
        var tokens: [SearchToken] = []
        for item in list {
            guard let object = item as? [String: Any] else { throw GRPCStatus(.invalidArgument, "each token must be an object") }
            try check(object, allowed: ["kind", "value"], in: "token")
            let kindName = try string(object["kind"], "token.kind") ?? ""
            guard let kind = SearchToken.Kind(rawValue: kindName) else {
                throw GRPCStatus(.invalidArgument, "token.kind must be \"category\", got \"\(kindName)\"")
            }
            guard let value = try string(object["value"], "token.value"), !value.isEmpty else {
                throw GRPCStatus(.invalidArgument, "token.value is required")
            }
            tokens.append(SearchToken(kind: kind, value: value))
        }
        return tokens
    }

    private static func typos(_ value: Any?) throws(GRPCStatus) -> TypoMode {
        guard let text = try string(value, "typos") else { return .auto }
        switch text {
        case "auto", "TYPOS_AUTO", "TYPOS_UNSPECIFIED": return .auto
        case "off", "TYPOS_OFF": return .off
        default: throw GRPCStatus(.invalidArgument, "typos must be \"auto\" or \"off\", got \"\(text)\"")
        }
    }

    /// A `SuggestRequest` from its JSON form, with the session and revision it carries.
    static func suggest(_ object: [String: Any]) throws(GRPCStatus) -> (SuggestRequest, session: String, revision: UInt64) {
        try check(object, allowed: ["text", "tokens", "limits", "typos", "dedupe", "session", "revision"], in: "SuggestRequest")
        var request = SuggestRequest(text: try string(object["text"], "text") ?? "")
        request.tokens = try tokens(object["tokens"])
        request.typos = try typos(object["typos"])
        request.dedupe = try bool(object["dedupe"], "dedupe") ?? true
        if let limitsValue = object["limits"] {
            guard let limits = limitsValue as? [String: Any] else { throw GRPCStatus(.invalidArgument, "limits must be an object") }
            try check(limits, allowed: ["entries", "categories", "completions"], in: "limits")
            request.limits.entries = try integer(limits["entries"], "limits.entries") ?? 10
            request.limits.categories = try integer(limits["categories"], "limits.categories") ?? 3
            request.limits.completions = try integer(limits["completions"], "limits.completions") ?? 5
        }
        let revision = try integer(object["revision"], "revision") ?? 0
        guard revision >= 0 else { throw GRPCStatus(.invalidArgument, "revision must not be negative") }
        return (request, try string(object["session"], "session") ?? "", UInt64(revision))
    }

    /// A `SearchRequest` from its JSON form.
    static func search(_ object: [String: Any]) throws(GRPCStatus) -> SearchRequest {
        try check(object, allowed: ["text", "tokens", "pageSize", "pageToken", "sort", "facets", "typos"], in: "SearchRequest")
        var request = SearchRequest(text: try string(object["text"], "text") ?? "")
        request.tokens = try tokens(object["tokens"])
        request.typos = try typos(object["typos"])
        request.pageSize = try integer(object["pageSize"], "pageSize") ?? 20
        request.pageToken = try string(object["pageToken"], "pageToken")
        request.facets = try bool(object["facets"], "facets") ?? true
        switch try string(object["sort"], "sort") ?? "relevance" {
        case "relevance", "SORT_RELEVANCE", "SORT_UNSPECIFIED": request.sort = .relevance
        case "weight", "SORT_WEIGHT": request.sort = .weight
        case let other: throw GRPCStatus(.invalidArgument, "sort must be \"relevance\" or \"weight\", got \"\(other)\"")
        }
        return request
    }

    /// The query string of `/v1/suggest?q=…&limit=…&typos=off&dedupe=false&token=category:NAME`.
    static func suggest(query items: [URLQueryItem]) throws(GRPCStatus) -> SuggestRequest {
        var request = SuggestRequest(text: "")
        for item in items {
            let value = item.value ?? ""
            switch item.name {
            case "q": request.text = value
            case "limit": request.limits.entries = try number(value, "limit")
            case "categories": request.limits.categories = try number(value, "categories")
            case "completions": request.limits.completions = try number(value, "completions")
            case "typos": request.typos = try typos(value)
            case "dedupe": request.dedupe = try flag(value, "dedupe")
            case "token": request.tokens.append(try token(value))
            default: throw GRPCStatus(.invalidArgument, "unknown query parameter \"\(item.name)\"")
            }
        }
        return request
    }

    /// The query string of `/v1/search?q=…&pageSize=…&pageToken=…&sort=weight&facets=false&token=…`.
    static func search(query items: [URLQueryItem]) throws(GRPCStatus) -> SearchRequest {
        var request = SearchRequest(text: "")
        for item in items {
            let value = item.value ?? ""
            switch item.name {
            case "q": request.text = value
            case "pageSize": request.pageSize = try number(value, "pageSize")
            case "pageToken": request.pageToken = value
            case "typos": request.typos = try typos(value)
            case "facets": request.facets = try flag(value, "facets")
            case "token": request.tokens.append(try token(value))
            case "sort":
                guard let sort = SearchRequest.Sort(rawValue: value) else {
                    throw GRPCStatus(.invalidArgument, "sort must be relevance or weight, got \"\(value)\"")
                }
                request.sort = sort
            default: throw GRPCStatus(.invalidArgument, "unknown query parameter \"\(item.name)\"")
            }
        }
        return request
    }

    private static func number(_ text: String, _ name: String) throws(GRPCStatus) -> Int {
        guard let value = Int(text) else { throw GRPCStatus(.invalidArgument, "\(name) must be a whole number, got \"\(text)\"") }
        return value
    }

    private static func flag(_ text: String, _ name: String) throws(GRPCStatus) -> Bool {
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default: throw GRPCStatus(.invalidArgument, "\(name) must be true or false, got \"\(text)\"")
        }
    }

    private static func token(_ text: String) throws(GRPCStatus) -> SearchToken {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let kind = SearchToken.Kind(rawValue: parts[0]), !parts[1].isEmpty else {
            throw GRPCStatus(.invalidArgument, "token must look like category:NAME, got \"\(text)\"")
        }
        return SearchToken(kind: kind, value: parts[1])
    }
}
