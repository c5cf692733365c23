/// The rank order (``RankKey``'s tiers) over whatever holds a key's parts: a materialised
/// ``RankKey``, or a key a coordinator leaves in a shard's answer bytes and compares without
/// making a `String` of it. The comparator is written once, here, so every holder orders alike
/// and a merge of keys held differently is still the one total order.
///
/// Conformances supply the tiers and the byte order of the two strings; `<` comes from here.
public protocol RankOrdered: Comparable {
    var typos: Int { get }
    var field: Int { get }
    var exact: Bool { get }
    var startsWith: Bool { get }
    var weight: UInt64 { get }
    /// The sort titles' UTF-8 bytes compared: negative, zero or positive (a prefix first).
    func compareSortTitle(to other: Self) -> Int
    /// The ids' UTF-8 bytes compared, likewise.
    func compareID(to other: Self) -> Int
}

extension RankOrdered {
    /// Fewer typos; lower field; exact; starts with the text; higher weight; sort title bytes; id
    /// bytes. Strings compare as UTF-8 bytes (code point order), never by Swift's canonical
    /// equivalence, so every process and language that merges results agrees.
    @inlinable
    public static func < (a: Self, b: Self) -> Bool {
        if a.typos != b.typos { return a.typos < b.typos }
        if a.field != b.field { return a.field < b.field }
        if a.exact != b.exact { return a.exact }
        if a.startsWith != b.startsWith { return a.startsWith }
        if a.weight != b.weight { return a.weight > b.weight }
        let title = a.compareSortTitle(to: b)
        if title != 0 { return title < 0 }
        return a.compareID(to: b) < 0
    }
}
