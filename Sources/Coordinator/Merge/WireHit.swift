import Index
import Wire
import WireConversions

/// A shard's hit as it arrived: its rank key, and its fields left in the shard's answer bytes
/// (``EncodedEntryHit``), from which the winners are written into the client's answer — never
/// decoded into values and encoded again.
struct WireHit: MergeableHit {
    let rank: RankKey
    let hit: EncodedEntryHit
    /// Made only for the hits the merge reaches (deduplication, highlights).
    var title: String { hit.titleString }
    var categories: [String] { hit.categoryStrings }

    static func hits(_ ranked: [RankedEntryView], field: String) throws(IndexError) -> [WireHit] {
        var hits: [WireHit] = []
        hits.reserveCapacity(ranked.count)
        for (index, entry) in ranked.enumerated() {
            guard let hit = entry.hit, let rank = entry.rank else {
                throw IndexError(.invalidArgument, "\(field)[\(index)] lacks its hit or rank")
            }
            hits.append(WireHit(rank: RankKey(rank), hit: hit))
        }
        return hits
    }
}

/// A shard's hit as the client sees it: the shard's fields, completing to its title, with the
/// highlights of the client's words.
struct PresentedHit: EntryHitFields {
    typealias Failure = Never
    let base: EncodedEntryHit
    let highlights: [Highlight]

    var weight: UInt64 { base.weight }
    func withID(_ body: (UnsafeRawBufferPointer) -> Void) { base.withID(body) }
    func withTitle(_ body: (UnsafeRawBufferPointer) -> Void) { base.withTitle(body) }
    func withCompletion(_ body: (UnsafeRawBufferPointer) -> Void) { base.withTitle(body) }
    func forEachCategory(_ body: (UnsafeRawBufferPointer) -> Void) { base.forEachCategory(body) }
    func forEachAttribute(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) { base.forEachAttribute(body) }

    func forEachHighlight(_ body: (UInt32, UInt32) -> Void) {
        for highlight in highlights { body(UInt32(clamping: highlight.start), UInt32(clamping: highlight.end)) }
    }
}

extension Presenter {
    /// A shard's hit as the client sees it (``present(_:)-1x9mv``, on the shard's bytes).
    mutating func present(_ wire: WireHit) -> PresentedHit {
        PresentedHit(base: wire.hit, highlights: highlights(inTitle: wire.title))
    }
}
