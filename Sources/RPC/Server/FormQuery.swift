import Foundation
import Wire

/// The query string of a GET form (`/v1/suggest?q=red+sh&token=category:Pet+Supplies`), decoded as
/// `application/x-www-form-urlencoded`: what browsers' `URLSearchParams`, Python's `urlencode` and
/// `curl --data-urlencode` send. `+` is a space, `%XX` a byte, and the bytes of every name and value
/// must be UTF-8.
///
/// Malformed input is refused with INVALID_ARGUMENT naming the parameter (`%` not followed by two
/// hex digits, invalid UTF-8), never decoded into something else: an unreadable `q` must not become
/// the empty query that matches the whole catalog. Cost: one pass over the bytes.
///
/// ```swift
/// try FormQuery.items(in: "/v1/suggest?q=red+sh&limit=3")  // [q: "red sh", limit: "3"]
/// try FormQuery.items(in: "/v1/suggest?q=knife%FF")        // INVALID_ARGUMENT: parameter "q" …
/// ```
enum FormQuery {
    /// The parameters of `path`'s query string (after the first `?`; none without one), in order.
    static func items(in path: String) throws(GRPCStatus) -> [URLQueryItem] {
        let bytes = Array(path.utf8)
        guard let question = bytes.firstIndex(of: UInt8(ascii: "?")) else { return [] }
        // A fragment is never sent by clients; if present it is not part of the query.
        let end = bytes[question...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        var items: [URLQueryItem] = []
        for pair in bytes[(question + 1)..<end].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let rawName = pair[..<(equals ?? pair.endIndex)]
            let name = try decode(rawName, parameter: nil)
            var value: String?
            if let equals { value = try decode(pair[(equals + 1)...], parameter: name) }
            items.append(URLQueryItem(name: name, value: value))
        }
        return items
    }

    /// `parameter` names the parameter in errors (nil while decoding the name itself).
    private static func decode(_ raw: ArraySlice<UInt8>, parameter: String?) throws(GRPCStatus) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = raw.startIndex
        while i < raw.endIndex {
            let byte = raw[i]
            switch byte {
            case UInt8(ascii: "+"):
                out.append(UInt8(ascii: " "))
                i += 1
            case UInt8(ascii: "%"):
                guard i + 2 < raw.endIndex, let high = hexValue(raw[i + 1]), let low = hexValue(raw[i + 2]) else {
                    throw invalid(parameter, "has a \"%\" that is not followed by two hexadecimal digits")
                }
                out.append(high << 4 | low)
                i += 3
            default:
                out.append(byte)
                i += 1
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw invalid(parameter, "is not valid UTF-8 once percent-decoded")
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func invalid(_ parameter: String?, _ problem: String) -> GRPCStatus {
        GRPCStatus(.invalidArgument, parameter.map { "query parameter \"\($0)\" \(problem)" } ?? "a query parameter name \(problem)")
    }
}
