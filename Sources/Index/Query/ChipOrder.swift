/// The one order of token chips (Semantics.md, "categories"): fewer typos first, then more
/// entries, then the token's kind and then its value, each by bytes. Chips of every kind (categories and
/// attribute values) share it, so one list holds them all; a node sorts its chips by it and a
/// coordinator merges the shards' chips by it, so a cluster's chips are one node's.
public enum ChipOrder {
    /// Whether chip `a` comes before chip `b`; `kind` and `name` compare as UTF-8 bytes.
    @inline(__always)
    public static func precedes<Text: Comparable>(typos a: Int, count aCount: Int, kind aKind: Text, name aName: Text,
                                                  before b: Int, count bCount: Int, kind bKind: Text, name bName: Text) -> Bool {
        if a != b { return a < b }
        if aCount != bCount { return aCount > bCount }
        if aKind != bKind { return aKind < bKind }
        return aName < bName
    }
}
