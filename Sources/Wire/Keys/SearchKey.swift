internal import COpenSSL
import Foundation
import JSONTree

/// A search key a browser can hold: tokens that every query made with it carries, an expiry, and
/// an HMAC-SHA256 over both with a secret only the servers and the operator know. An app's backend
/// derives one per tenant (`typeahead admin search-key`) and hands it to the page; the page cannot
/// widen what it sees, since the tokens are signed, and tokens only narrow a query.
///
/// This is the scheme of Typesense's scoped API keys and Meilisearch's tenant tokens: nothing is
/// stored server-side, so keys cost nothing to issue and die on their own. Revoking one before it
/// expires means replacing the secret (servers accept several, so a rotation loses no request).
///
/// Encoding: `tsk1.` + base64url(payload) + `.` + base64url(HMAC-SHA256(secret, payload)), no
/// padding, where the payload is the JSON object
/// `{"expires":UNIX_SECONDS,"label":"…","tokens":[{"kind":"category","value":"…"}]}`. The MAC
/// covers the payload's bytes as sent, so no canonical form is needed to verify it.
///
/// ```swift
/// let key = SearchKey(tokens: [.init(kind: "category", value: "Acme")], expires: now + 3600, label: "acme")
/// let text = key.signed(with: secret)                        // "tsk1.eyJleHBpcmVzIjo…"
/// let checked = try SearchKey.verify(text, secrets: [secret], now: now)   // == key
/// ```
public struct SearchKey: Sendable, Hashable {
    /// Tokens forced onto every Suggest and Search made with the key.
    public var tokens: [Typeahead_V1_SearchToken]
    /// When the key stops working: seconds since 1970-01-01 UTC.
    public var expires: Int64
    /// Free text for the operator (a tenant's name); logged, never matched.
    public var label: String

    public static let prefix = "tsk1."
    /// The longest key accepted (a header's worth): more is refused before any decoding.
    public static let maximumBytes = 4096
    public static let maximumTokens = 32
    /// Shortest secret accepted: 32 bytes, the hash's own size (RFC 2104's advice).
    public static let minimumSecretBytes = 32

    public init(tokens: [Typeahead_V1_SearchToken], expires: Int64, label: String = "") {
        self.tokens = tokens
        self.expires = expires
        self.label = label
    }

    /// The key's text, signed with `secret`.
    public func signed(with secret: [UInt8]) -> String {
        var json = JSONWriter()
        json.beginObject()
        json.key("expires"); json.integer(expires)
        json.key("label"); json.string(label)
        json.key("tokens")
        json.beginArray()
        for token in tokens {
            json.beginObject()
            json.key("kind"); json.string(token.kind)
            json.key("value"); json.string(token.value)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        let payload = json.bytes
        return Self.prefix + Self.base64URL(payload) + "." + Self.base64URL(Self.mac(payload, secret: secret))
    }

    /// Why a key is refused. The message is safe to show the caller: it names no secret.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public enum Reason: String, Sendable, Hashable {
            /// Not a key's shape, too long, or a payload that is not the documented JSON.
            case malformed
            /// No secret of this server signed it (forged, altered, or signed with a retired secret).
            case forged
            case expired
        }
        public var reason: Reason
        public var description: String
    }

    /// Checks `text` against each secret (any one may have signed it: rotation), then its expiry
    /// against `now` (seconds since 1970 UTC). O(key length); refuses more than ``maximumBytes``
    /// before decoding, and reads the payload only once its MAC is proven, so nothing a stranger
    /// sends is parsed.
    public static func verify(_ text: String, secrets: [[UInt8]], now: Int64) throws(Refusal) -> SearchKey {
        func refuse(_ reason: Refusal.Reason, _ message: String) -> Refusal { Refusal(reason: reason, description: message) }
        let malformed = refuse(.malformed, "not a search key (expected tsk1.PAYLOAD.SIGNATURE)")
        guard text.utf8.count <= maximumBytes, text.hasPrefix(prefix) else { throw malformed }
        let parts = text.utf8.dropFirst(prefix.utf8.count).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = fromBase64URL(parts[0]), let signature = fromBase64URL(parts[1]),
              signature.count == 32 else { throw malformed }
        guard secrets.contains(where: { equalInConstantTime(mac(payload, secret: $0), signature) }) else {
            throw refuse(.forged, "the search key was not signed by this server's secret")
        }
        let key: SearchKey
        do { key = try decode(payload) } catch { throw malformed }
        guard key.expires > now else {
            throw refuse(.expired, "the search key expired at \(key.expires) (now \(now)); ask for a new one")
        }
        return key
    }

    /// The secrets of a file: each non-empty line (trimmed) is one, the first signs and every one
    /// verifies. At least one, each of at least ``minimumSecretBytes`` bytes.
    public static func secrets(fromFile path: String) throws -> [[UInt8]] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SecretsError(description: "cannot read the search-key secrets file \(path)")
        }
        let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw SecretsError(description: "\(path) holds no secret (one a line)") }
        for (index, line) in lines.enumerated() where line.utf8.count < minimumSecretBytes {
            throw SecretsError(description: "\(path): secret on line \(index + 1) is \(line.utf8.count) bytes; "
                               + "use at least \(minimumSecretBytes) (e.g. `openssl rand -hex 32`)")
        }
        return lines.map { Array($0.utf8) }
    }

    public struct SecretsError: Error, CustomStringConvertible {
        public var description: String
    }

    // MARK: Encoding

    private struct DecodeError: Error {}

    private static func decode(_ payload: [UInt8]) throws -> SearchKey {
        guard case .object(let members) = try JSONTree.parse(payload, maximumValues: 4 + 3 * maximumTokens, maximumDepth: 3) else {
            throw DecodeError()
        }
        var expires: Int64?, label = "", tokens: [Typeahead_V1_SearchToken]?
        for (name, value) in members {
            switch (name, value) {
            case ("expires", .number(let text)): expires = Int64(text)
            case ("label", .string(let text)): label = text
            case ("tokens", .array(let items)):
                tokens = try items.map { item in
                    guard case .object(let fields) = item, fields.count == 2,
                          case .string(let kind)? = fields.first(where: { $0.key == "kind" })?.value,
                          case .string(let value)? = fields.first(where: { $0.key == "value" })?.value else { throw DecodeError() }
                    return Typeahead_V1_SearchToken(kind: kind, value: value)
                }
            default: throw DecodeError()
            }
        }
        guard let expires, let tokens, tokens.count <= maximumTokens else { throw DecodeError() }
        return SearchKey(tokens: tokens, expires: expires, label: label)
    }

    static func mac(_ payload: [UInt8], secret: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let done = secret.withUnsafeBytes { key in
            payload.withUnsafeBufferPointer { data in
                out.withUnsafeMutableBufferPointer { md in
                    HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), data.baseAddress, data.count, md.baseAddress, &length)
                }
            }
        }
        // Only an allocation failure inside OpenSSL makes HMAC fail: no caller could recover.
        precondition(done != nil && length == 32, "HMAC-SHA256 failed")
        return Array(out.prefix(32))
    }

    /// CRYPTO_memcmp: time independent of where the bytes first differ.
    static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 } }
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    static func fromBase64URL(_ utf8: Substring.UTF8View.SubSequence) -> [UInt8]? {
        var text = String(decoding: utf8, as: UTF8.self).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !text.contains("=") else { return nil }
        while text.utf8.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text).map(Array.init)
    }
}
