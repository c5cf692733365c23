/// The total order every ranked result is sorted by: smaller keys rank first.
///
/// Shards return it with each hit so that a coordinator can merge their answers into exactly the
/// answer of one node holding the whole catalog: its order is ``RankOrdered``'s, the one
/// comparator every holder of a key uses.
///
/// Suggest: fewer typos; title is the typed text; title starts with the typed text; higher weight;
/// analysed title; id.
/// Search (relevance): fewer typos; best field; title is the text; title starts with the text;
/// higher weight; id (``field`` is 0 for suggest; ``sortTitle`` is empty for search).
/// Search (by weight): higher weight; id (``typos``, ``field`` 0, ``exact`` false, ``startsWith`` true).
public struct RankKey: Sendable, Hashable, RankOrdered {
    /// Total edits across query words.
    public var typos: Int
    /// Search only: sum over query words of the best field each matched (title 0, alias 1, description 2).
    public var field: Int
    /// Whether the analysed title is exactly the typed words (the partial word taken as complete):
    /// "koba" is the town Koba before the more popular Kőbánya. Such an entry has no typos and
    /// starts with the text, so this tier only reorders typo-free startsWith matches.
    public var exact: Bool
    /// Whether the typed words stand, in order, at the start of the title.
    public var startsWith: Bool
    public var weight: UInt64
    /// The analysed title (suggest), or empty (search).
    public var sortTitle: String
    public var id: String

    public init(typos: Int, field: Int = 0, exact: Bool = false, startsWith: Bool, weight: UInt64, sortTitle: String, id: String) {
        self.typos = typos
        self.field = field
        self.exact = exact
        self.startsWith = startsWith
        self.weight = weight
        self.sortTitle = sortTitle
        self.id = id
    }

    public func compareSortTitle(to other: RankKey) -> Int { compareUTF8(sortTitle, other.sortTitle) }
    public func compareID(to other: RankKey) -> Int { compareUTF8(id, other.id) }
}
