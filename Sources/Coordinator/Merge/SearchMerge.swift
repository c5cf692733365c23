import Index

/// Merges every shard's page of one search request into the page one node holding the whole
/// catalog returns: the same hits, `totalHits`, facets, and byte for byte the same
/// `nextPageToken` (so the next page can go to any sharding, or to a single node).
///
/// ```swift
/// var merge = SearchMerge(request: request)      // request.pageToken forwarded to every shard
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
/// Complexity: O(n log n) in the hits received.
public struct SearchMerge {
    public let request: SearchRequest
    private var hits: [EntryHit] = []
    private var totalHits = 0
    private var facets: [[UInt8]: Facet] = [:]
    private var someShardHasMore = false

    public init(request: SearchRequest) {
        self.request = request
    }

    public mutating func add(_ part: SearchResponse) {
        hits.append(contentsOf: part.hits)
        totalHits += part.totalHits
        for facet in part.facets {
            facets[Array(facet.name.utf8), default: Facet(name: facet.name, count: 0)].count += facet.count
        }
        someShardHasMore = someShardHasMore || part.nextPageToken != nil
    }

    /// The merged page.
    ///
    /// - Throws: ``IndexError/Code/invalidArgument`` when the request's text or tokens are over
    ///   their limits (a shard would have refused it first).
    public func result() throws(IndexError) -> SearchResponse {
        let sorted = hits.sorted { $0.rank < $1.rank }
        var response = SearchResponse(hits: Array(sorted.prefix(request.pageSize)), totalHits: totalHits)
        response.facets = facets.values.sorted { a, b in
            a.count != b.count ? a.count > b.count : a.name.utf8.lexicographicallyPrecedes(b.name.utf8)
        }
        if someShardHasMore || sorted.count > request.pageSize, let last = response.hits.last {
            response.nextPageToken = try SearchPages.token(continuing: request, after: last.rank)
        }
        return response
    }
}
