import Index

/// Merges every shard's ``ResponseForm/shardPart`` answer to one suggest request into the answer
/// one node holding the whole catalog gives — still as facts; present it with ``Presenter``.
///
/// ```swift
/// var merge = SuggestMerge<EntryHit, QueryCompletion, CategorySuggestion>(request: request)
/// for part in shardAnswers { merge.add(part) }
/// var answer = merge.result()
/// var presenter = Presenter(text: request.text, typos: request.typos)
/// presenter.present(&answer)
/// ```
///
/// Why the result is exact — every shard ranks by the same total order (``RankKey``, ids break
/// ties) and returns its own best `limit` of each section:
/// - **Entries.** Take the k-th entry of the single-node answer (k < limit); it lives in shard s
///   and ranks before everything of its title, so shard s kept it. Every title that shard s ranks
///   before it also ranks before it globally, so fewer than `limit` of them exist: shard s
///   returned it. Sorting the union and deduplicating titles (bytes) again gives the answer.
/// - **Completions.** A word's best entry is the best of its per-shard best entries; the argument
///   for entries carries over with words in place of titles. Its spelling comes from the shard
///   holding that best entry.
/// - **Categories.** A chip's count is the sum of per-shard counts and its typos depend only on its
///   name, so no shard can know the order of chips: shards return every matching chip (up to
///   ``SuggestResponse/maximumShardCategories``; ``categoriesTruncated`` reports when one could
///   not), and the limit is applied here.
///
/// Strings are keyed by their UTF-8 bytes, never by Swift `String` equality (which would join
/// canonically equivalent spellings that the index keeps apart).
///
/// Generic over what the facts are held in (``MergeableHit``, ``MergeableCompletion``,
/// ``MergeableCategory``): the tests merge Index values; the coordinator merges views of the
/// shards' answer bytes as they arrived (``RankedEntryView``, ``RankedCompletionView``,
/// ``RankedCategoryView``), so a fact is never converted to an Index value and back on the query
/// path.
///
/// Complexity: `add` is O(part size); `result` merges the shards' sorted entries and completions
/// (``RankedLists``), O(limit × shards) comparisons (plus O(limit²) to keep words distinct), and
/// sorts the chips received.
public struct SuggestMerge<Hit: MergeableHit, Completion: MergeableCompletion, Category: MergeableCategory> {
    /// The merged facts: still to be presented.
    public struct Result {
        public var entries: [Hit]
        public var completions: [Completion]
        public var categories: [Category]
        public var categoriesTruncated: Bool
    }

    public let request: SuggestRequest
    private var entries = RankedLists<Hit> { $0.mergeRank < $1.mergeRank }
    /// Every shard's completions, each list in completion order: a word's first one met in the
    /// merged order is its best.
    private var completions = RankedLists<Completion>(by: ranksBefore)
    private var categories: [ChipName<Category.Text>: Category] = [:]
    /// Some shard matched more categories than it could list; chips may differ from a single node's.
    public private(set) var categoriesTruncated = false

    /// `shards`: how many parts will be added (room is made for them once).
    public init(request: SuggestRequest, shards: Int = 1) {
        self.request = request
        entries.reserve(shards)
        completions.reserve(shards)
    }

    /// One shard's part.
    public mutating func add(entries hits: [Hit], completions partCompletions: [Completion],
                             categories partCategories: [Category], truncated: Bool) {
        entries.add(hits)
        completions.add(partCompletions)
        for category in partCategories {
            let name = category.mergeName
            if var known = categories[name] {
                known.mergeCount += category.mergeCount
                known.mergeTypos = min(known.mergeTypos, category.mergeTypos)
                categories[name] = known
            } else {
                categories[name] = category
            }
        }
        categoriesTruncated = categoriesTruncated || truncated
    }

    /// The merged facts, cut to the request's limits. Reads the shards' lists in place: call it
    /// once.
    public mutating func merged() -> Result {
        var result = Result(entries: [], completions: [], categories: [], categoriesTruncated: categoriesTruncated)
        let limits = request.limits
        var seenDisplays = DisplaySet(capacity: request.dedupe ? min(limits.entries, entries.count) : 0)
        result.entries.reserveCapacity(min(limits.entries, entries.count))
        while result.entries.count < limits.entries, let hit = entries.next() {
            if request.dedupe, !seenDisplays.insert(hit) { continue }
            result.entries.append(hit)
        }
        // The first `limit` distinct words in completion order, each with its best (first) one.
        while result.completions.count < limits.completions, let completion = completions.next() {
            let term = completion.mergeTerm
            if result.completions.contains(where: { $0.mergeTerm == term }) { continue }
            result.completions.append(completion)
        }
        result.categories = categories.values.sorted { a, b in
            let x = a.mergeName, y = b.mergeName
            return ChipOrder.precedes(typos: a.mergeTypos, count: a.mergeCount, kind: x.kind, name: x.name,
                                      before: b.mergeTypos, count: b.mergeCount, kind: y.kind, name: y.name)
        }
        if result.categories.count > limits.categories { result.categories.removeLast(result.categories.count - limits.categories) }
        return result
    }
}

extension SuggestMerge where Hit == EntryHit, Completion == QueryCompletion, Category == CategorySuggestion {
    /// One shard's answer, as the Index type.
    public mutating func add(_ part: SuggestResponse) {
        add(entries: part.entries, completions: part.completions, categories: part.categories, truncated: part.categoriesTruncated)
    }

    /// The merged answer as the Index type (facts: present it with ``Presenter``). Once.
    public mutating func result() -> SuggestResponse {
        let merged = merged()
        return SuggestResponse(entries: merged.entries, categories: merged.categories, completions: merged.completions,
                               categoriesTruncated: merged.categoriesTruncated)
    }
}

/// Completion order (Semantics.md): the partial word's distance, then the best entry's key, then
/// the word's bytes.
func ranksBefore<Completion: MergeableCompletion>(_ a: Completion, _ b: Completion) -> Bool {
    if a.mergeTypos != b.mergeTypos { return a.mergeTypos < b.mergeTypos }
    if a.mergeBest < b.mergeBest { return true }
    if b.mergeBest < a.mergeBest { return false }
    return a.mergeTerm < b.mergeTerm
}
