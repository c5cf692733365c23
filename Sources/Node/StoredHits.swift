import Index
import Wire
import WireConversions

/// A node's hits as the wire encoders read them (``EntryHitFields``): straight from the index's
/// memory map, inside the read transaction of ``Shard/suggest(_:form:generation:shouldStop:answer:)``.
/// No field becomes a `String`; each is copied once, into the response bytes.
struct StoredHits: EntryHitList {
    let hits: [HitView]

    var count: Int { hits.count }
    func hit(at index: Int) -> StoredHit { StoredHit(view: hits[index]) }
}

struct StoredHit: EntryHitFields {
    typealias Failure = any Error
    let view: HitView

    var weight: UInt64 { view.weight }
    func withID(_ body: (UnsafeRawBufferPointer) -> Void) { view.withID(body) }
    func withTitle(_ body: (UnsafeRawBufferPointer) -> Void) { view.withTitle(body) }
    func withCompletion(_ body: (UnsafeRawBufferPointer) -> Void) { view.withCompletion(body) }
    func forEachCategory(_ body: (UnsafeRawBufferPointer) -> Void) throws { try view.forEachCategory(body) }
    func forEachAttribute(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) throws { try view.forEachAttribute(body) }

    func forEachHighlight(_ body: (UInt32, UInt32) -> Void) {
        for highlight in view.highlights { body(UInt32(clamping: highlight.start), UInt32(clamping: highlight.end)) }
    }
}
