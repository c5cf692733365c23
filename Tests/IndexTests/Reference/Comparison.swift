// Comparing the index with the brute-force reference: suggest responses, and search paged to the
// end. Rendering and section diffs live in TestSupport (Render.swift).

import Dispatch
import Foundation
import Index
import TestSupport

/// Pages through the shard's search and compares the concatenation with the reference's full
/// order; also checks page sizes, `nextPageToken` and `totalHits`/`facets` on every page.
func searchDiff(shard: Shard, reference: ReferenceIndex, request: SearchRequest) -> String? {
    let expected = Timing.reference { reference.searchAll(request) }
    Coverage.count(request, expected.hits)
    let expectedFacets = expected.facets.map(Render.facet)
    var problems: [String] = []
    // Page-level problems (totalHits, facets) are reported on the first page they occur only.
    var pageProblemCount = 0
    func pageProblem(_ text: String) {
        pageProblemCount += 1
        if pageProblemCount == 1 { problems.append(text) }
    }
    var hits: [EntryHit] = []
    var token: String? = nil
    var page = 0
    let maximumPages = expected.hits.count / max(1, request.pageSize) + 3
    repeat {
        page += 1
        var r = request
        r.pageToken = token
        let response: SearchResponse
        do {
            response = try Timing.shard(search: true) { try shard.search(r) }
        } catch {
            problems.append("page \(page) threw \(error)")
            break
        }
        if response.hits.count > request.pageSize {
            problems.append("page \(page) has \(response.hits.count) hits, more than pageSize \(request.pageSize)")
        }
        if response.totalHits != expected.totalHits {
            pageProblem("page \(page): totalHits \(response.totalHits), expected \(expected.totalHits)")
        }
        if let d = sectionDiff("page \(page) facets", expected: expectedFacets, got: response.facets.map(Render.facet)) {
            pageProblem(d)
        }
        hits += response.hits
        token = response.nextPageToken
        if token != nil, hits.count >= expected.hits.count {
            problems.append("page \(page) completes all \(expected.hits.count) hits (has \(hits.count)) but returns a nextPageToken")
        }
        if token != nil, response.hits.isEmpty {
            problems.append("page \(page) is empty but returns a nextPageToken")
            break
        }
        if page >= maximumPages, token != nil {
            problems.append("still a nextPageToken after \(page) pages")
            break
        }
    } while token != nil
    if pageProblemCount > 1 {
        problems.append("(\(pageProblemCount - 1) more page-level problems of the same kind on later pages)")
    }
    if let d = sectionDiff("hits (all pages, \(page) pages)", expected: expected.hits.map(Render.hit), got: hits.map(Render.hit)) {
        problems.append(d)
    }
    return problems.isEmpty ? nil : problems.joined(separator: "\n")
}

func suggestDiff(shard: Shard, reference: ReferenceIndex, request: SuggestRequest) -> String? {
    let expected = Timing.reference { reference.suggest(request) }
    Coverage.count(request, expected)
    do {
        return suggestDiff(expected: expected, got: try Timing.shard { try shard.suggest(request) })
    } catch {
        return "suggest threw \(error)"
    }
}

/// Where the time of the exactness tests goes: the shard's queries or the reference's.
enum Timing {
    nonisolated(unsafe) static var shardSeconds = 0.0
    nonisolated(unsafe) static var shardSearchSeconds = 0.0
    nonisolated(unsafe) static var searchPages = 0
    nonisolated(unsafe) static var referenceSeconds = 0.0

    static func shard<T>(search: Bool = false, _ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            shardSeconds += seconds
            if search {
                shardSearchSeconds += seconds
                searchPages += 1
            }
        }
        return try body()
    }

    static func reference<T>(_ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { referenceSeconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        return try body()
    }

    static func reset() {
        shardSeconds = 0
        shardSearchSeconds = 0
        searchPages = 0
        referenceSeconds = 0
    }

    static var summary: String {
        String(format: "shard queries %.1f s (of which %d search pages %.1f s), reference %.1f s",
               shardSeconds, searchPages, shardSearchSeconds, referenceSeconds)
    }
}

/// What the compared responses contained, so that a run shows it exercised typos, completions,
/// categories, several pages and so on (an exactness test on empty answers proves little).
enum Coverage {
    nonisolated(unsafe) static var counts: [String: Int] = [:]

    static func add(_ what: String, _ condition: Bool = true) {
        if condition { counts[what, default: 0] += 1 }
    }

    static func count(_ request: SuggestRequest, _ r: SuggestResponse) {
        add("suggest")
        add("suggest with tokens", !request.tokens.isEmpty)
        add("suggest with entries", !r.entries.isEmpty)
        add("suggest with a typo entry", r.entries.contains { $0.rank.typos > 0 })
        add("suggest with a not-startsWith entry", r.entries.contains { !$0.rank.startsWith })
        add("suggest with entries cut by the limit", r.entries.count == request.limits.entries && request.limits.entries > 0)
        add("suggest with completions", !r.completions.isEmpty)
        add("suggest with a typo completion", r.completions.contains { $0.typos > 0 })
        add("suggest with categories", !r.categories.isEmpty)
    }

    static func count(_ request: SearchRequest, _ hits: [EntryHit]) {
        add("search")
        add("search with hits", !hits.isEmpty)
        add("search with several pages", hits.count > request.pageSize)
        add("search with a typo hit", hits.contains { $0.rank.typos > 0 })
        add("search with an alias/description hit", hits.contains { $0.rank.field > 0 })
    }

    static func reset() { counts = [:] }

    static var summary: String {
        counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }
}
