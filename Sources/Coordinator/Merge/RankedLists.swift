/// The shards' lists, each in one order, read as one list in that order: a k-way merge.
///
/// Why: a merged answer needs only its first `limit` hits (or completions), and the shards already
/// sorted theirs. Each step compares the heads of the k lists (k is the shard count, a handful),
/// so a page of `limit` costs O(limit × k) comparisons instead of sorting all k × limit elements
/// received, and nothing is moved. A list that is not in order (a shard that broke its contract)
/// is sorted on arrival, so the result is the sorted union whatever the shards send.
struct RankedLists<Element> {
    /// The order: a total one (rank keys end in ids), so the merge is deterministic.
    private let precedes: (Element, Element) -> Bool
    private var lists: [[Element]] = []
    private var cursors: [Int] = []
    /// Elements in every list, read or not.
    private(set) var count = 0

    init(by precedes: @escaping (Element, Element) -> Bool) {
        self.precedes = precedes
    }

    /// Makes room for `lists` lists.
    mutating func reserve(_ lists: Int) {
        self.lists.reserveCapacity(lists)
        cursors.reserveCapacity(lists)
    }

    mutating func add(_ list: [Element]) {
        guard !list.isEmpty else { return }
        var sorted = true
        for index in list.indices.dropFirst() where !precedes(list[index - 1], list[index]) {
            sorted = false
            break
        }
        lists.append(sorted ? list : list.sorted(by: precedes))
        cursors.append(0)
        count += list.count
    }

    /// The next element in order, or nil when all are read.
    mutating func next() -> Element? {
        var best = -1
        for list in lists.indices where cursors[list] < lists[list].count {
            if best < 0 || precedes(lists[list][cursors[list]], lists[best][cursors[best]]) { best = list }
        }
        guard best >= 0 else { return nil }
        defer { cursors[best] += 1 }
        return lists[best][cursors[best]]
    }
}
