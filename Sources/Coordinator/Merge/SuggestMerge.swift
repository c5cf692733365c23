import Index

/// Merges every shard's ``ResponseForm/shardPart`` answer to one suggest request into the answer
/// one node holding the whole catalog gives — still as facts; present it with ``Presenter``.
///
/// ```swift
/// var merge = SuggestMerge<EntryHit>(request: request)
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
/// Generic over the hit type: the tests merge Index ``EntryHit``s; the coordinator merges the
/// hits of the shards' wire messages as they arrived (``WireHit``), so a hit is never converted
/// to an Index value and back on the query path.
///
/// Complexity: `add` is O(part size); `result` merges the shards' sorted lists (``RankedLists``),
/// O(limit × shards) comparisons plus sorting the completions and chips received.
public struct SuggestMerge<Hit: MergeableHit> {
    /// The merged facts: still to be presented.
    public struct Result {
        public var entries: [Hit]
        public var completions: [QueryCompletion]
        public var categories: [CategorySuggestion]
        public var categoriesTruncated: Bool
    }

    public let request: SuggestRequest
    private var entries = RankedLists<Hit>()
    private var completions: [UTF8Key: QueryCompletion] = [:]
    private var categories: [UTF8Key: CategorySuggestion] = [:]
    /// Some shard matched more categories than it could list; chips may differ from a single node's.
    public private(set) var categoriesTruncated = false

    public init(request: SuggestRequest) {
        self.request = request
    }

    /// One shard's part.
    public mutating func add(entries hits: [Hit], completions partCompletions: [QueryCompletion],
                             categories partCategories: [CategorySuggestion], truncated: Bool) {
        entries.add(hits)
        for completion in partCompletions {
            let term = UTF8Key(completion.term)
            if let known = completions[term], !ranksBefore(completion, known) { continue }
            completions[term] = completion
        }
        for category in partCategories {
            let name = UTF8Key(category.name)
            if var known = categories[name] {
                known.count += category.count
                known.typos = min(known.typos, category.typos)
                categories[name] = known
            } else {
                categories[name] = category
            }
        }
        categoriesTruncated = categoriesTruncated || truncated
    }

    /// What the person sees of a hit, as one string that two hits share exactly when their title and
    /// categories are byte-identical (each part length-prefixed, so no separator can be forged).
    static func display(_ hit: Hit) -> String {
        var key = "\(hit.title.utf8.count):\(hit.title)"
        for category in hit.categories { key += "\(category.utf8.count):\(category)" }
        return key
    }

    /// The merged facts, cut to the request's limits.
    public func merged() -> Result {
        var result = Result(entries: [], completions: [], categories: [], categoriesTruncated: categoriesTruncated)
        let limits = request.limits
        var seenDisplays = Set<UTF8Key>()
        var ranked = entries
        while result.entries.count < limits.entries, let hit = ranked.next() {
            if request.dedupe, !seenDisplays.insert(UTF8Key(Self.display(hit))).inserted { continue }
            result.entries.append(hit)
        }
        result.completions = Array(completions.values.sorted(by: ranksBefore).prefix(limits.completions))
        result.categories = Array(categories.values.sorted { a, b in
            if a.typos != b.typos { return a.typos < b.typos }
            if a.count != b.count { return a.count > b.count }
            return a.name.utf8.lexicographicallyPrecedes(b.name.utf8)
        }.prefix(limits.categories))
        return result
    }
}

extension SuggestMerge where Hit == EntryHit {
    /// One shard's answer, as the Index type.
    public mutating func add(_ part: SuggestResponse) {
        add(entries: part.entries, completions: part.completions, categories: part.categories, truncated: part.categoriesTruncated)
    }

    /// The merged answer as the Index type (facts: present it with ``Presenter``).
    public func result() -> SuggestResponse {
        let merged = merged()
        return SuggestResponse(entries: merged.entries, categories: merged.categories, completions: merged.completions,
                               categoriesTruncated: merged.categoriesTruncated)
    }
}

/// Completion order (Semantics.md): the partial word's distance, then the best entry's key, then
/// the word's bytes.
func ranksBefore(_ a: QueryCompletion, _ b: QueryCompletion) -> Bool {
    if a.typos != b.typos { return a.typos < b.typos }
    if a.best < b.best { return true }
    if b.best < a.best { return false }
    return a.term.utf8.lexicographicallyPrecedes(b.term.utf8)
}

/// A hit the merges can order: its rank key, and its title (deduplicated by bytes).
public protocol MergeableHit {
    var rank: RankKey { get }
    var title: String { get }
    var categories: [String] { get }
}

extension EntryHit: MergeableHit {}
