/// A `typeahead.v1.ShardSuggestResponse` read for merging, in one pass and without a `String`:
/// every field checked as the generated decoder checks it (UTF-8, wire types, lengths), numbers
/// decoded, strings and hits left in the received bytes, which the view owns (``buffer``). What a
/// coordinator needs of a shard's answer, at the cost of reading it once.
///
/// Its parts point into ``buffer``: use them while the view lives (``MessageBuffer``'s lifetime
/// rule).
public struct ShardSuggestResponseView: Sendable {
    /// The message's bytes, which every part below points into.
    public let buffer: MessageBuffer
    public var entries: [RankedEntryView] = []
    public var categories: [RankedCategoryView] = []
    public var completions: [RankedCompletionView] = []
    public var generation: UInt64 = 0
    public var categoriesTruncated = false
    /// The hits carry their highlights (`hits_highlighted`): a coordinator forwards them.
    public var hitsHighlighted = false

    /// Reads `bytes` (one message, not framed) into a buffer of its own, refusing what the
    /// generated decoder refuses.
    public init(_ bytes: [UInt8]) throws(ProtoError) {
        try self.init(bytes[...])
    }

    /// Reads the message in `bytes` (a slice of a response body) into a buffer of its own.
    public init(_ bytes: ArraySlice<UInt8>) throws(ProtoError) {
        buffer = MessageBuffer(copying: bytes)
        // Each list allocated once, at its size: a skim of the top-level keys first (cheap next to
        // reading the fields; a malformed message is refused by the reading, not here).
        var counts = (entries: 0, categories: 0, completions: 0)
        var skim = ProtoReader(buffer.bytes)
        while let tag = try? skim.nextTag(), (try? skim.skip(tag)) != nil {
            switch tag.number {
            case 1: counts.entries += 1
            case 2: counts.categories += 1
            case 3: counts.completions += 1
            default: break
            }
        }
        entries.reserveCapacity(counts.entries)
        categories.reserveCapacity(counts.categories)
        completions.reserveCapacity(counts.completions)
        var reader = ProtoReader(buffer.bytes)
        try read(&reader)
    }

    private mutating func read(_ reader: inout ProtoReader) throws(ProtoError) {
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: entries.append(try reader.readMessage(tag, "entries", as: RankedEntryView.self))
            case 2: categories.append(try reader.readMessage(tag, "categories", as: RankedCategoryView.self))
            case 3: completions.append(try reader.readMessage(tag, "completions", as: RankedCompletionView.self))
            case 4: generation = try reader.read(ProtoUInt64.self, tag, "generation")
            case 5: categoriesTruncated = try reader.read(ProtoBool.self, tag, "categories_truncated")
            case 6: hitsHighlighted = try reader.read(ProtoBool.self, tag, "hits_highlighted")
            default: try reader.skip(tag)
            }
        }
    }
}
