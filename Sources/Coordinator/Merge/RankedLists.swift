import Index

/// The shards' hit lists, each in rank order, read as one list in rank order: a k-way merge.
///
/// Why: a merged answer needs only its first `limit` hits, and the shards already sorted theirs.
/// Each step compares the heads of the k lists (k is the shard count, a handful), so a page of
/// `limit` costs O(limit × k) comparisons instead of sorting all k × limit hits received, and no
/// hit is moved. A list that is not in rank order (a shard that broke its contract) is sorted on
/// arrival, so the result is the sorted union whatever the shards send.
struct RankedLists<Hit: MergeableHit> {
    private var lists: [[Hit]] = []
    private var cursors: [Int] = []
    /// Hits in every list, read or not.
    private(set) var count = 0

    mutating func add(_ list: [Hit]) {
        guard !list.isEmpty else { return }
        var sorted = true
        for index in list.indices.dropFirst() where !(list[index - 1].rank < list[index].rank) {
            sorted = false
            break
        }
        lists.append(sorted ? list : list.sorted { $0.rank < $1.rank })
        cursors.append(0)
        count += list.count
    }

    /// The next hit in rank order (RankKey is a total order: ids break ties), or nil when all are read.
    mutating func next() -> Hit? {
        var best = -1
        for list in lists.indices where cursors[list] < lists[list].count {
            if best < 0 || lists[list][cursors[list]].rank < lists[best][cursors[best]].rank { best = list }
        }
        guard best >= 0 else { return nil }
        defer { cursors[best] += 1 }
        return lists[best][cursors[best]]
    }
}
