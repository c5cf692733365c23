import Index
import Wire

/// A node's hits as the wire encoders read them (``EntryHitFields``): straight from the index's
/// memory map, inside the read transaction of ``Shard/suggest(_:form:generation:shouldStop:answer:)``.
/// No field becomes a `String`; a hit whose record keeps its fields encoded is copied whole.
public struct StoredHits: EntryHitList {
    public let hits: [HitView]

    public init(hits: [HitView]) { self.hits = hits }

    public var count: Int { hits.count }
    public func hit(at index: Int) -> StoredHit { StoredHit(view: hits[index]) }
}

public struct StoredHit: EntryHitFields {
    public typealias Failure = any Error
    public let view: HitView

    public init(view: HitView) { self.view = view }

    public var weight: UInt64 { view.weight }
    public func withID(_ body: (UnsafeRawBufferPointer) -> Void) { view.withID(body) }
    public func withTitle(_ body: (UnsafeRawBufferPointer) -> Void) { view.withTitle(body) }
    public func withCompletion(_ body: (UnsafeRawBufferPointer) -> Void) { view.withCompletion(body) }
    public func forEachCategory(_ body: (UnsafeRawBufferPointer) -> Void) throws { try view.forEachCategory(body) }
    public func forEachAttribute(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) throws { try view.forEachAttribute(body) }
    public func withEncodedFields(_ body: (UnsafeRawBufferPointer) -> Void) throws -> Bool { try view.withEncodedFields(body) }

    public func forEachHighlight(_ body: (UInt32, UInt32) -> Void) throws {
        try view.forEachHighlight { body(UInt32(clamping: $0), UInt32(clamping: $1)) }
    }
}

/// A presented answer's completion texts: the field's text before the partial word, then each
/// completed word as its best entry writes it, lent from the memory map.
struct StoredCompletionTexts: CompletionTextList {
    let head: String
    let completions: [CompletionView]

    var count: Int { completions.count }

    func withText(at index: Int, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
        var head = head
        head.withUTF8 { head in completions[index].withSpelling { body(UnsafeRawBufferPointer(head), $0) } }
    }
}
