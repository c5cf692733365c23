/// The order a client sees completions in (Semantics.md, "completions"): the candidates' order,
/// except that within a run of the same distance and the same best entry the words of that
/// entry's title come first. "sao pa": São Paulo offers "paulo" (its title's) and "paulistana"
/// (an alias's, no spelling of it), and "paulistana" sorts first by bytes.
///
/// Applied to the first `limit` candidates only, after they are chosen, wherever an answer is
/// presented (a node's own, a coordinator's merged one, the reference's): which words are returned
/// stays a matter of the total order that shards merge by, and every presenter reorders the same
/// list the same way. A shard's part of an answer keeps the merge order.
public enum PresentedCompletionOrder {
    /// The positions of `count` completions in presented order, or nil when that is the order
    /// they are in (no run of one entry's words: the common case, and then nothing is allocated).
    /// `sameRun(i, j)`: completions `i` and `j` have the same distance and best entry;
    /// `isTitleWord(i)`: completion `i`'s word is a word of its best entry's analysed title.
    /// O(count).
    public static func order(count: Int, sameRun: (Int, Int) -> Bool, isTitleWord: (Int) -> Bool) -> [Int]? {
        guard (1..<max(1, count)).contains(where: { sameRun($0 - 1, $0) }) else { return nil }
        var order: [Int] = []
        order.reserveCapacity(count)
        var start = 0
        while start < count {
            var end = start + 1
            while end < count, sameRun(start, end) { end += 1 }
            if end - start == 1 {
                order.append(start)
            } else {
                for index in start..<end where isTitleWord(index) { order.append(index) }
                for index in start..<end where !isTitleWord(index) { order.append(index) }
            }
            start = end
        }
        return order
    }

    /// Whether `term` is one of the space-separated words of `sortTitle`.
    public static func isWord<Term: Collection<UInt8>, Title: Collection<UInt8>>(_ term: Term, of sortTitle: Title) -> Bool {
        sortTitle.split(separator: 0x20, omittingEmptySubsequences: true).contains { $0.elementsEqual(term) }
    }

    /// `completions` in presented order.
    public static func presented(_ completions: [QueryCompletion]) -> [QueryCompletion] {
        order(count: completions.count,
              sameRun: { completions[$0].typos == completions[$1].typos && completions[$0].best == completions[$1].best },
              isTitleWord: { isWord(completions[$0].term.utf8, of: completions[$0].best.sortTitle.utf8) })?
            .map { completions[$0] } ?? completions
    }
}
