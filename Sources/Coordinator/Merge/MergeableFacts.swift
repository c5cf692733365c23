import Index

// What the merges read of a shard's facts. Two kinds of values conform: the Index types (the
// tests merge them, and they define the semantics), and views of the bytes a shard sent
// (``RankedEntryView``, ``RankedCompletionView``, ``RankedCategoryView``: the coordinator merges these,
// so a fact is never turned into `String`s and back). The merge code is written once, over these
// protocols.

/// A hit the merges can order and deduplicate.
public protocol MergeableHit {
    associatedtype Rank: Comparable
    /// The total order of hits (``RankOrdered``: ids break ties).
    var mergeRank: Rank { get }
    /// The rank as an Index value, for the one hit a search page token continues after.
    var rankKey: RankKey { get }
    /// What the person sees of the hit, the key entries are deduplicated by: `body` gets the
    /// title's UTF-8, then each category's, in order.
    func forEachDisplayPart(_ body: (UnsafeRawBufferPointer) -> Void)
}

/// A completion the suggest merge can group by word and order.
public protocol MergeableCompletion {
    associatedtype Rank: Comparable
    associatedtype Term: Hashable & Comparable
    /// Edits between the partial word and the word.
    var mergeTypos: Int { get }
    /// The rank key of the best entry holding the word.
    var mergeBest: Rank { get }
    /// The completed word as a key: equal, hashed and ordered by its UTF-8 bytes.
    var mergeTerm: Term { get }
}

/// A token chip (a category or an attribute value) the suggest merge can add up by kind and
/// name and order.
public protocol MergeableCategory {
    associatedtype Text: Hashable & Comparable
    /// The token's kind and the name as a key: equal, hashed and ordered by their UTF-8 bytes.
    var mergeName: ChipName<Text> { get }
    /// Entries carrying the chip's token (added up across shards).
    var mergeCount: Int { get set }
    /// Edits between the partial word and the name (the least across shards).
    var mergeTypos: Int { get set }
}

extension EntryHit: MergeableHit {
    public var mergeRank: RankKey { rank }
    public var rankKey: RankKey { rank }

    public func forEachDisplayPart(_ body: (UnsafeRawBufferPointer) -> Void) {
        for var text in CollectionOfOne(title) + categories { text.withUTF8 { body(UnsafeRawBufferPointer($0)) } }
    }
}

extension QueryCompletion: MergeableCompletion {
    public var mergeTypos: Int { typos }
    public var mergeBest: RankKey { best }
    public var mergeTerm: UTF8Key { UTF8Key(term) }
}

extension CategorySuggestion: MergeableCategory {
    public var mergeName: ChipName<UTF8Key> { ChipName(kind: UTF8Key(token.kind.rawValue), name: UTF8Key(name)) }
    public var mergeCount: Int {
        get { count }
        set { count = newValue }
    }
    public var mergeTypos: Int {
        get { typos }
        set { typos = newValue }
    }
}
