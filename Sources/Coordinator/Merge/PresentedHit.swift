import Index
import Wire

/// A shard's hit as the client sees it: the shard's fields, completing to its title, with the
/// highlights of the client's words.
struct PresentedHit: EntryHitFields {
    typealias Failure = Never
    let base: EncodedEntryHit
    /// The highlights computed here; nil: the shard's own (``ShardSuggestResponseView/hitsHighlighted``).
    let highlights: [Highlight]?

    var weight: UInt64 { base.weight }
    func withID(_ body: (UnsafeRawBufferPointer) -> Void) { base.withID(body) }
    func withTitle(_ body: (UnsafeRawBufferPointer) -> Void) { base.withTitle(body) }
    func withCompletion(_ body: (UnsafeRawBufferPointer) -> Void) { base.withTitle(body) }
    func forEachCategory(_ body: (UnsafeRawBufferPointer) -> Void) { base.forEachCategory(body) }
    func forEachAttribute(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) { base.forEachAttribute(body) }
    /// The shard's fields 1–5 in one copy, when it sent them as the encoder writes them.
    func withEncodedFields(_ body: (UnsafeRawBufferPointer) -> Void) -> Bool { base.withEncodedFields(body) }

    func forEachHighlight(_ body: (UInt32, UInt32) -> Void) {
        guard let highlights else { return base.forEachHighlight(body) }
        for highlight in highlights { body(UInt32(clamping: highlight.start), UInt32(clamping: highlight.end)) }
    }
}

extension Presenter {
    /// A shard's hit as the client sees it (``present(_:)-1x9mv``, on the shard's bytes): with the
    /// highlights the shard sent when it sent them (`highlighted`), else computed here from the
    /// title.
    mutating func present(_ entry: RankedEntryView, highlighted: Bool) -> PresentedHit {
        PresentedHit(base: entry.entryHit, highlights: highlighted ? nil : highlights(inTitle: entry.title))
    }
}
