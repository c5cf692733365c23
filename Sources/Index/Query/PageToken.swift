import Analysis
import Foundation

/// The opaque cursor of search pagination: the rank key of the last hit of a page, a fingerprint
/// of the query it belongs to, and the collection it was issued for.
///
/// Pages are found by key ("everything after this key"), never by skipping, so a page costs the
/// same wherever it is and results do not repeat or vanish when entries are added between pages.
/// Encoding (base64url, no padding): `u8 version=2, u8 sort, u64be fingerprint, varint typos,
/// varint field, u8 tiers (bit 0 startsWith, bit 1 exact), varint weight, string id, string
/// collection`. Version 1, written before tokens named their collection, ends after the id: it
/// decodes with no collection, and continues the default collection only. Tokens written before
/// the exact tier have bit 1 clear, which is what they meant.
struct PageToken {
    var sort: SearchRequest.Sort
    var fingerprint: UInt64
    var after: RankKey
    /// The collection's name (empty: none named); nil for a version 1 token.
    var collection: String?

    func encoded() -> String {
        var writer = ByteWriter()
        writer.byte(collection == nil ? 1 : 2)
        writer.byte(sort == .relevance ? 0 : 1)
        writer.u64be(fingerprint)
        writer.varint(after.typos)
        writer.varint(after.field)
        writer.byte((after.startsWith ? 1 : 0) | (after.exact ? 2 : 0))
        writer.varint(after.weight)
        writer.string(after.id)
        if let collection { writer.string(collection) }
        return Data(writer.bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    init(sort: SearchRequest.Sort, fingerprint: UInt64, after: RankKey, collection: String?) {
        self.sort = sort
        self.fingerprint = fingerprint
        self.after = after
        self.collection = collection
    }

    init(decoding text: String) throws(IndexError) {
        let invalid = IndexError.invalidArgument("pageToken is not a token this service issued")
        guard text.utf8.count <= 2048 else { throw invalid }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { throw invalid }
        var bytes = Array(data)
        var offset = 0
        func byte() throws(IndexError) -> UInt8 {
            guard offset < bytes.count else { throw invalid }
            defer { offset += 1 }
            return bytes[offset]
        }
        func varint() throws(IndexError) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = try byte()
                guard shift < 64 else { throw invalid }
                value |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return value }
                shift += 7
            }
        }
        let version = try byte()
        guard version == 1 || version == 2 else { throw invalid }
        let sortByte = try byte()
        guard sortByte <= 1 else { throw invalid }
        sort = sortByte == 0 ? .relevance : .weight
        var fingerprint: UInt64 = 0
        for _ in 0..<8 { fingerprint = fingerprint << 8 | UInt64(try byte()) }
        self.fingerprint = fingerprint
        let typos = try varint(), field = try varint()
        let tiers = try byte()
        let weight = try varint()
        let idLength = try varint()
        guard typos < 1000, field < 1000, tiers <= 3, idLength <= UInt64(bytes.count - offset) else { throw invalid }
        let idBytes = bytes[offset..<(offset + Int(idLength))]
        guard let id = String(validating: idBytes, as: UTF8.self) else { throw invalid }
        offset += Int(idLength)
        if version == 2 {
            let length = try varint()
            guard length <= UInt64(bytes.count - offset),
                  let name = String(validating: bytes[offset..<(offset + Int(length))], as: UTF8.self) else { throw invalid }
            collection = name
        } else {
            collection = nil
        }
        bytes = []
        after = RankKey(typos: Int(typos), field: Int(field), exact: tiers & 2 != 0, startsWith: tiers & 1 != 0, weight: weight,
                        sortTitle: "", id: id)
    }

    /// FNV-1a over everything that defines a result order.
    static func fingerprint(of query: PreparedQuery, sort: SearchRequest.Sort, typos: TypoMode) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
            for b in bytes { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            hash = (hash ^ 0xFF) &* 0x0000_0100_0000_01B3
        }
        mix(sort.rawValue.utf8)
        mix(typos.rawValue.utf8)
        for word in query.complete { mix(word.bytes) }
        mix(query.partial.map { [0x01] + $0.bytes } ?? [0x00])
        for token in query.tokens.sorted() { mix(Schema.tokenTerm(token)) }
        return hash
    }
}

/// Search pagination across shards.
///
/// Pages continue strictly after a rank key, so a coordinator forwards a client's `pageToken` to
/// every shard unchanged, merges their pages, and ends the merged page with the token this
/// function makes for its last hit: byte for byte the token one node holding the whole catalog
/// would have issued.
///
/// ```swift
/// let next = try SearchPages.token(continuing: request, after: merged.hits.last!.rank)
/// ```
public enum SearchPages {
    /// The `nextPageToken` for a page of `request` whose last hit ranks `last`. O(length of the text).
    ///
    /// - Throws: ``IndexError/Code/invalidArgument`` when the request's text or tokens are over
    ///   their limits (as the search itself would).
    public static func token(continuing request: SearchRequest, after last: RankKey, analyzer: Analyzer = Analyzer()) throws(IndexError) -> String {
        let query = try PreparedQuery(text: request.text, tokens: request.tokens, typos: request.typos, analyzer: analyzer)
        let fingerprint = PageToken.fingerprint(of: query, sort: request.sort, typos: request.typos)
        return PageToken(sort: request.sort, fingerprint: fingerprint, after: last, collection: request.collection).encoded()
    }

    /// Refuses a `pageToken` sent to another collection than the one it was issued for: a token
    /// carries only a rank key and a query's fingerprint, which another collection would accept
    /// and answer wrongly (from the middle of its order, with a total of its own). A version 1
    /// token (issued before tokens named their collection) continues the default collection only,
    /// as it then did. A token that does not decode is left to the search, which refuses it.
    ///
    /// - Parameters:
    ///   - collection: the collection the request reads, resolved (a request naming none reads
    ///     the default, by its name).
    ///   - isDefault: whether that is the server's default collection.
    /// - Throws: INVALID_ARGUMENT, reason ``IndexError/Reason/pageTokenOtherCollection``.
    public static func checkCollection(ofToken text: String, collection: String, isDefault: Bool) throws(IndexError) {
        guard !text.isEmpty, let token = try? PageToken(decoding: text) else { return }
        if let issuedFor = token.collection {
            guard issuedFor != collection else { return }
            throw IndexError(.invalidArgument, "pageToken was issued for collection \"\(issuedFor)\", not \"\(collection)\": "
                                               + "send it with the collection whose answer issued it",
                             reason: .pageTokenOtherCollection, metadata: ["issuedFor": issuedFor, "collection": collection])
        }
        guard !isDefault else { return }
        throw IndexError(.invalidArgument, "pageToken was issued before page tokens named their collection: it continues the default "
                                           + "collection only, not \"\(collection)\"",
                         reason: .pageTokenOtherCollection, metadata: ["collection": collection])
    }

    /// Refuses any `pageToken` of a scoped Search: a scope's sections page on one at a time, each
    /// with a Search naming its collection.
    ///
    /// - Throws: INVALID_ARGUMENT, reason ``IndexError/Reason/pageTokenOtherCollection``.
    public static func checkNoToken(_ text: String, scope: String) throws(IndexError) {
        guard !text.isEmpty else { return }
        var metadata = ["scope": scope]
        let issuedFor = (try? PageToken(decoding: text))?.collection
        if let issuedFor { metadata["issuedFor"] = issuedFor }
        throw IndexError(.invalidArgument, "a scoped search takes no pageToken: page a section with a Search naming its collection"
                                           + (issuedFor.map { " (this one was issued for collection \"\($0)\")" } ?? ""),
                         reason: .pageTokenOtherCollection, metadata: metadata)
    }
}
