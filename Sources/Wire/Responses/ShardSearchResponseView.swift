/// A `typeahead.v1.ShardSearchResponse` read for merging, as ``ShardSuggestResponseView`` reads a
/// suggest answer: the hits in place, the few facets and the page token decoded.
public struct ShardSearchResponseView: Sendable {
    /// The message's bytes, which the hits point into.
    public let buffer: MessageBuffer
    public var hits: [RankedEntryView] = []
    public var totalHits: UInt32 = 0
    public var facets: [Typeahead_V1_Facet] = []
    public var nextPageToken = ""
    public var generation: UInt64 = 0

    public init(_ bytes: [UInt8]) throws(ProtoError) {
        try self.init(bytes[...])
    }

    /// Reads the message in `bytes` (a slice of a response body) into a buffer of its own.
    public init(_ bytes: ArraySlice<UInt8>) throws(ProtoError) {
        buffer = MessageBuffer(copying: bytes)
        var reader = ProtoReader(buffer.bytes)
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: hits.append(try reader.readMessage(tag, "hits", as: RankedEntryView.self))
            case 2: totalHits = try reader.read(ProtoUInt32.self, tag, "total_hits")
            case 3: facets.append(try reader.readMessage(tag, "facets", as: Typeahead_V1_Facet.self))
            case 4: nextPageToken = try reader.read(ProtoString.self, tag, "next_page_token")
            case 5: generation = try reader.read(ProtoUInt64.self, tag, "generation")
            default: try reader.skip(tag)
            }
        }
    }
}
