import Index

/// Merges every shard's page of one search request into the page one node holding the whole
/// catalog returns: the same hits, `totalHits`, facets, and byte for byte the same
/// `nextPageToken` (so the next page can go to any sharding, or to a single node).
///
/// ```swift
/// var merge = SearchMerge<EntryHit>(request: request)   // request.pageToken forwarded to every shard
/// for part in shardPages { merge.add(part) }
/// var page = try merge.result()
/// ```
///
/// Why the result is exact: a page token continues strictly after a rank key, so every shard
/// returns its best `pageSize` hits after the same key, and the merged page is the best `pageSize`
/// of their union. More pages exist exactly when the shards hold more than `pageSize` hits after
/// the key in all: some shard has a next page of its own, or the union is longer than the page.
/// Totals and facet counts add up (every match lives in exactly one shard).
///
/// Generic over the hit type, like ``SuggestMerge``.
///
/// Complexity: O(pageSize × shards) comparisons (``RankedLists``) plus sorting the facets.
public struct SearchMerge<Hit: MergeableHit> {
    /// The merged page: still to be presented.
    public struct Result {
        public var hits: [Hit]
        public var totalHits: Int
        public var facets: [Facet]
        public var nextPageToken: String?
    }

    public let request: SearchRequest
    private var hits = RankedLists<Hit> { $0.mergeRank < $1.mergeRank }
    private var totalHits = 0
    private var facets: [UTF8Key: Facet] = [:]
    private var someShardHasMore = false

    public init(request: SearchRequest) {
        self.request = request
    }

    /// One shard's page: its hits, total, facets, and whether it has a page of its own after these.
    public mutating func add(hits page: [Hit], totalHits total: Int, facets shardFacets: [Facet], hasMore: Bool) {
        hits.add(page)
        totalHits += total
        for facet in shardFacets {
            facets[UTF8Key(facet.name), default: Facet(name: facet.name, count: 0)].count += facet.count
        }
        someShardHasMore = someShardHasMore || hasMore
    }

    /// The merged page.
    ///
    /// - Throws: ``IndexError/Code/invalidArgument`` when the request's text or tokens are over
    ///   their limits (a shard would have refused it first).
    public func merged() throws(IndexError) -> Result {
        var ranked = hits
        var page: [Hit] = []
        while page.count < request.pageSize, let hit = ranked.next() { page.append(hit) }
        var result = Result(hits: page, totalHits: totalHits, facets: [], nextPageToken: nil)
        result.facets = facets.values.sorted { a, b in
            a.count != b.count ? a.count > b.count : a.name.utf8.lexicographicallyPrecedes(b.name.utf8)
        }
        if someShardHasMore || hits.count > request.pageSize, let last = result.hits.last {
            result.nextPageToken = try SearchPages.token(continuing: request, after: last.rankKey)
        }
        return result
    }
}

extension SearchMerge where Hit == EntryHit {
    public mutating func add(_ part: SearchResponse) {
        add(hits: part.hits, totalHits: part.totalHits, facets: part.facets, hasMore: part.nextPageToken != nil)
    }

    /// The merged page as the Index type (present it with ``Presenter``).
    public func result() throws(IndexError) -> SearchResponse {
        let merged = try merged()
        return SearchResponse(hits: merged.hits, totalHits: merged.totalHits, facets: merged.facets, nextPageToken: merged.nextPageToken)
    }
}
