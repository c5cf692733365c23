import Index
import Wire

/// A shard's rank key as it arrived (``RankKeyView``), in the one rank order (``RankOrdered``),
/// its strings compared as bytes where they lie.
public struct WireRank: RankOrdered {
    public let view: RankKeyView

    public init(_ view: RankKeyView) {
        self.view = view
    }

    public var typos: Int { Int(view.typos) }
    public var field: Int { Int(view.field) }
    public var exact: Bool { view.exact }
    public var startsWith: Bool { view.startsWith }
    public var weight: UInt64 { view.weight }
    public func compareSortTitle(to other: WireRank) -> Int { compareBytes(view.sortTitle, other.view.sortTitle) }
    public func compareID(to other: WireRank) -> Int { compareBytes(view.id, other.view.id) }

    /// Equal in the order: neither ranks before the other.
    public static func == (a: WireRank, b: WireRank) -> Bool { !(a < b) && !(b < a) }
}
