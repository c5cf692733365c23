import Index
import Wire

/// A node's hits as the wire encoders read them (``EntryHitFields``): straight from the index's
/// memory map, inside the read transaction of ``Shard/suggest(_:form:generation:shouldStop:answer:)``.
/// No field becomes a `String`; each is copied once, into the response bytes.
public struct StoredHits: EntryHitList {
    public let hits: [HitView]

    public init(hits: [HitView]) { self.hits = hits }

    public var count: Int { hits.count }
    public func hit(at index: Int) -> StoredHit { StoredHit(view: hits[index]) }
}

public struct StoredHit: EntryHitFields {
    public typealias Failure = any Error
    public let view: HitView

    public var weight: UInt64 { view.weight }
    public func withID(_ body: (UnsafeRawBufferPointer) -> Void) { view.withID(body) }
    public func withTitle(_ body: (UnsafeRawBufferPointer) -> Void) { view.withTitle(body) }
    public func withCompletion(_ body: (UnsafeRawBufferPointer) -> Void) { view.withCompletion(body) }
    public func forEachCategory(_ body: (UnsafeRawBufferPointer) -> Void) throws { try view.forEachCategory(body) }
    public func forEachAttribute(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) throws { try view.forEachAttribute(body) }

    public func forEachHighlight(_ body: (UInt32, UInt32) -> Void) {
        for highlight in view.highlights { body(UInt32(clamping: highlight.start), UInt32(clamping: highlight.end)) }
    }
}
