/// A timer scheduled with ``HTTP2EventLoop/scheduleTimer(after:_:)``: an opaque id that only
/// ``HTTP2EventLoop/cancelTimer(_:)`` of the same loop understands. Two words, no reference
/// counting, so keeping a couple per request in flight costs nothing.
public struct HTTP2Timer: Sendable, Hashable {
    /// The loop's own timer id (ids only grow, never reused within a loop).
    let id: UInt64
    /// Which loop scheduled it: ids of different loops overlap, so cancelling checks this.
    let loop: ObjectIdentifier
}
