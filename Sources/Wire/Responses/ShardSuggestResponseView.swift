/// A `typeahead.v1.ShardSuggestResponse` read for merging: every field decoded as usual except
/// the hits, which stay in the received bytes (``EncodedEntryHit``), each with its decoded rank
/// key — what a coordinator needs of a shard's answer, at the cost of reading it once.
public struct ShardSuggestResponseView: Sendable {
    public var entries: [RankedEntryView] = []
    public var categories: [Typeahead_V1_RankedCategory] = []
    public var completions: [Typeahead_V1_RankedCompletion] = []
    public var generation: UInt64 = 0
    public var categoriesTruncated = false

    /// Reads `bytes` (one message, not framed), refusing what the generated decoder refuses.
    public init(_ bytes: [UInt8]) throws(ProtoError) {
        try RankedEntryView.withReader(bytes) { reader throws(ProtoError) in try read(&reader, bytes) }
    }

    private mutating func read(_ reader: inout ProtoReader, _ bytes: [UInt8]) throws(ProtoError) {
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: entries.append(try RankedEntryView(&reader, tag, "entries", storage: bytes))
            case 2: categories.append(try reader.readMessage(tag, "categories", as: Typeahead_V1_RankedCategory.self))
            case 3: completions.append(try reader.readMessage(tag, "completions", as: Typeahead_V1_RankedCompletion.self))
            case 4: generation = try reader.read(ProtoUInt64.self, tag, "generation")
            case 5: categoriesTruncated = try reader.read(ProtoBool.self, tag, "categories_truncated")
            default: try reader.skip(tag)
            }
        }
    }
}

/// A `typeahead.v1.ShardSearchResponse` read for merging, as ``ShardSuggestResponseView``.
public struct ShardSearchResponseView: Sendable {
    public var hits: [RankedEntryView] = []
    public var totalHits: UInt32 = 0
    public var facets: [Typeahead_V1_Facet] = []
    public var nextPageToken = ""
    public var generation: UInt64 = 0

    public init(_ bytes: [UInt8]) throws(ProtoError) {
        try RankedEntryView.withReader(bytes) { reader throws(ProtoError) in try read(&reader, bytes) }
    }

    private mutating func read(_ reader: inout ProtoReader, _ bytes: [UInt8]) throws(ProtoError) {
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: hits.append(try RankedEntryView(&reader, tag, "hits", storage: bytes))
            case 2: totalHits = try reader.read(ProtoUInt32.self, tag, "total_hits")
            case 3: facets.append(try reader.readMessage(tag, "facets", as: Typeahead_V1_Facet.self))
            case 4: nextPageToken = try reader.read(ProtoString.self, tag, "next_page_token")
            case 5: generation = try reader.read(ProtoUInt64.self, tag, "generation")
            default: try reader.skip(tag)
            }
        }
    }
}

/// A `typeahead.v1.RankedEntry` with its hit left in the received bytes.
public struct RankedEntryView: Sendable {
    public var hit: EncodedEntryHit?
    public var rank: Typeahead_V1_RankKey?

    /// Reads the entry field `tag` from `reader`, whose buffer holds `storage`'s bytes.
    init(_ reader: inout ProtoReader, _ tag: ProtoTag, _ name: StaticString, storage: [UInt8]) throws(ProtoError) {
        var hit: EncodedEntryHit?
        var rank: Typeahead_V1_RankKey?
        try reader.readNested(tag, name) { fields throws(ProtoError) in
            while let field = try fields.nextTag() {
                switch field.number {
                case 1: try fields.readNested(field, "hit") { content throws(ProtoError) in hit = try EncodedEntryHit(decoding: &content, storage: storage) }
                case 2: rank = try fields.readMessage(field, "rank", as: Typeahead_V1_RankKey.self)
                default: try fields.skip(field)
                }
            }
        }
        self.hit = hit
        self.rank = rank
    }

    /// Runs `body` with a reader over `bytes` (withUnsafeBytes rethrows untyped errors: the typed
    /// one is carried out).
    static func withReader(_ bytes: [UInt8], _ body: (inout ProtoReader) throws(ProtoError) -> Void) throws(ProtoError) {
        var failure: ProtoError?
        bytes.withUnsafeBytes { buffer in
            var reader = ProtoReader(buffer)
            do throws(ProtoError) { try body(&reader) } catch { failure = error }
        }
        if let failure { throw failure }
    }
}
