import Foundation
import Wire
import XCTest

/// Search keys: what a holder can and cannot do with one, byte by byte.
final class SearchKeyTests: XCTestCase {
    let secret = Array("a-secret-of-at-least-thirty-two-bytes!".utf8)
    let other = Array("another-secret-of-thirty-two-bytes-or-more".utf8)
    let now: Int64 = 1_800_000_000
    var acme: SearchKey { SearchKey(tokens: [.init(kind: "category", value: "Acme")], expires: now + 60, label: "tenant acme") }

    func testASignedKeyVerifiesWithItsSecretOrAnyOfARotation() throws {
        let text = acme.signed(with: secret)
        XCTAssertTrue(text.hasPrefix("tsk1."))
        XCTAssertFalse(text.contains("=") || text.contains("+") || text.contains("/"), "base64url without padding: \(text)")
        XCTAssertEqual(try SearchKey.verify(text, secrets: [secret], now: now), acme)
        XCTAssertEqual(try SearchKey.verify(text, secrets: [other, secret], now: now), acme, "the old secret of a rotation")
        let many = SearchKey(tokens: (0..<SearchKey.maximumTokens).map { .init(kind: "category", value: "ünï \"\($0)\"") },
                             expires: now + 1, label: "")
        XCTAssertEqual(try SearchKey.verify(many.signed(with: secret), secrets: [secret], now: now), many)
    }

    func refusal(_ text: String, secrets: [[UInt8]]? = nil, now: Int64? = nil) -> SearchKey.Refusal.Reason? {
        do {
            _ = try SearchKey.verify(text, secrets: secrets ?? [secret], now: now ?? self.now)
            return nil
        } catch {
            return error.reason
        }
    }

    func testExpiredForgedAndAlteredKeysAreRefused() throws {
        let text = acme.signed(with: secret)
        XCTAssertEqual(refusal(text, now: now + 60), .expired, "a key dies at its expiry")
        XCTAssertEqual(refusal(text, secrets: [other]), .forged)
        XCTAssertEqual(refusal(acme.signed(with: other)), .forged)
        // Another tenant's payload under this key's signature: the MAC covers the payload.
        let parts = text.dropFirst(5).split(separator: ".")
        let widened = SearchKey(tokens: [.init(kind: "category", value: "Globex")], expires: now + 60, label: "tenant acme").signed(with: other)
        let widenedPayload = widened.dropFirst(5).split(separator: ".")[0]
        XCTAssertEqual(refusal("tsk1.\(widenedPayload).\(parts[1])"), .forged)
        // No tokens at all, and a later expiry, under the old signature.
        let open = SearchKey(tokens: [], expires: now + 1_000_000, label: "tenant acme").signed(with: other)
        XCTAssertEqual(refusal("tsk1.\(open.dropFirst(5).split(separator: ".")[0]).\(parts[1])"), .forged)
        // One bit of the signature.
        var flipped = Array(text.utf8)
        flipped[flipped.count - 3] = flipped[flipped.count - 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        XCTAssertEqual(refusal(String(decoding: flipped, as: UTF8.self)), .forged)
    }

    func testMalformedKeysAreRefusedAtBoundedCost() throws {
        let text = acme.signed(with: secret)
        for bad in ["", "tsk1.", "tsk1..", "tsk2." + text.dropFirst(5), String(text.dropLast(2)), text + ".x", "tsk1.!!!.AAAA",
                    "tsk1." + String(repeating: "A", count: SearchKey.maximumBytes), text.replacingOccurrences(of: ".", with: "=")] {
            XCTAssertEqual(refusal(bad), .malformed, bad)
        }
        // Signed correctly but not the documented payload: still refused, after the MAC.
        func signedPayload(_ json: String) -> String {
            let payload = Array(json.utf8)
            return "tsk1." + base64URL(payload) + "." + base64URL(hmac(payload))
        }
        XCTAssertEqual(refusal(signedPayload(#"{"expires":1900000000,"label":"","tokens":[]}"#)), nil, "the helpers sign as a key does")
        for json in ["[]", #"{"expires":"soon","label":"","tokens":[]}"#, #"{"label":"","tokens":[]}"#,
                     #"{"expires":1900000000,"label":"","tokens":[],"admin":true}"#,
                     #"{"expires":1900000000,"label":"","tokens":[{"kind":"category"}]}"#,
                     #"{"expires":1900000000,"label":"","tokens":[{"kind":"category","value":"a","x":1}]}"#,
                     #"{"expires":99999999999999999999,"label":"","tokens":[]}"#, "not json"] {
            XCTAssertEqual(refusal(signedPayload(json)), .malformed, json)
        }
    }

    func testAKeysTokensAreAddedToWhatTheRequestAsks() {
        let key = SearchKey(tokens: [.init(kind: "category", value: "Acme"), .init(kind: "category", value: "Shoes")], expires: now)
        var request = Typeahead_V1_SuggestRequest(text: "red")
        request.tokens = [.init(kind: "category", value: "Shoes"), .init(kind: "category", value: "Red")]
        XCTAssertEqual(request.restricted(to: key).tokens.map(\.value), ["Shoes", "Red", "Acme"], "the request's own stay, none twice")
        XCTAssertEqual(request.restricted(to: nil), request)
        let search = Typeahead_V1_SearchRequest(text: "red")
        XCTAssertEqual(search.restricted(to: key).tokens.map(\.value), ["Acme", "Shoes"])
    }

    func testSecretsFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("search-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func secrets(_ text: String) throws -> [[UInt8]] {
            let path = directory.appendingPathComponent("secrets").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return try SearchKey.secrets(fromFile: path)
        }
        XCTAssertEqual(try secrets(" \(String(decoding: secret, as: UTF8.self))\n\n\(String(decoding: other, as: UTF8.self))\n"), [secret, other])
        XCTAssertThrowsError(try secrets("\n\n"))
        XCTAssertThrowsError(try secrets("short\n")) { XCTAssertTrue("\($0)".contains("line 1"), "\($0)") }
        XCTAssertThrowsError(try SearchKey.secrets(fromFile: directory.appendingPathComponent("missing").path))
    }

    // An independent HMAC-SHA256 (FIPS 180-4 and RFC 2104, written out) so the test does not
    // check the implementation against itself.
    func hmac(_ message: [UInt8]) -> [UInt8] {
        var key = secret
        if key.count > 64 { key = sha256(key) }
        key += [UInt8](repeating: 0, count: 64 - key.count)
        return sha256(key.map { $0 ^ 0x5C } + sha256(key.map { $0 ^ 0x36 } + message))
    }

    func sha256(_ message: [UInt8]) -> [UInt8] {
        let k: [UInt32] = [
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
            0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
            0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
            0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
            0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
            0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
            0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
        ]
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var data = message + [0x80]
        while data.count % 64 != 56 { data.append(0) }
        data += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(message.count * 8) >> (56 - 8 * $0)) }
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
        for chunk in stride(from: 0, to: data.count, by: 64) {
            var w = (0..<16).map { i in (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(data[chunk + 4 * i + $1]) } }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w.append(w[i - 16] &+ s0 &+ w[i - 7] &+ s1)
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0..<64 {
                let t1 = hh &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (i, v) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ v }
        }
        return h.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
    }

    func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    func testTheReferenceHMACIsRight() {
        // RFC 4231, test case 2.
        let key = Array("Jefe".utf8), data = Array("what do ya want for nothing?".utf8)
        let padded = key + [UInt8](repeating: 0, count: 64 - key.count)
        let mac = sha256(padded.map { $0 ^ 0x5C } + sha256(padded.map { $0 ^ 0x36 } + data))
        XCTAssertEqual(mac.map { String(format: "%02x", $0) }.joined(), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
