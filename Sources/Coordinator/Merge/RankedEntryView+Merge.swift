import Index
import Wire
import WireConversions

/// A shard's hit as it arrived (``RankedEntryView``): its rank key and its fields left in the
/// shard's answer bytes, from which the winners are written into the client's answer — never
/// decoded into values and encoded again, nor copied into another list before merging. Plain
/// pointers: valid while the shard's ``ShardSuggestResponseView`` (its buffer) lives.
///
/// Merged only once ``checkMergeable(_:field:)`` passed: every entry has its hit and rank.
extension RankedEntryView: MergeableHit {
    public var mergeRank: WireRank { WireRank(rank.unsafelyUnwrapped) }
    public var rankKey: RankKey { RankKey(rank.unsafelyUnwrapped.message) }
    var entryHit: EncodedEntryHit { hit.unsafelyUnwrapped }

    public func forEachDisplayPart(_ body: (UnsafeRawBufferPointer) -> Void) {
        entryHit.withTitle(body)
        entryHit.forEachCategory(body)
    }

    /// Made only for the hits the merge keeps (highlights).
    var title: String { entryHit.titleString }

    /// Throws unless every entry has its hit and rank (a shard that leaves one out broke the Shard
    /// API: the call fails, as it did when hits were decoded).
    static func checkMergeable(_ entries: [RankedEntryView], field: String) throws(IndexError) {
        for (index, entry) in entries.enumerated() where entry.hit == nil || entry.rank == nil {
            throw IndexError(.invalidArgument, "\(field)[\(index)] lacks its hit or rank")
        }
    }
}
