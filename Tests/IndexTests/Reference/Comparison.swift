// Rendering and field-by-field comparison of responses, with readable diffs.
//
// Every value is rendered to one line that shows every field; strings are quoted with the
// invisible scalars (nonspacing marks, format and control characters) escaped, so "café" (NFC)
// and "cafe\u{301}" (NFD) render differently. Two values are considered equal when their
// renderings are byte-identical, which is stricter than Swift's `==` on `String` (canonical
// equivalence).

import Dispatch
import Foundation
import Index

enum Render {
    static func str(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                let category = scalar.properties.generalCategory
                if scalar.value < 0x20 || scalar.value == 0x7F || category == .nonspacingMark
                    || category == .enclosingMark || category == .format || category == .spaceSeparator && scalar != " " {
                    out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func key(_ k: RankKey) -> String {
        "(typos \(k.typos), field \(k.field), startsWith \(k.startsWith), weight \(k.weight), sortTitle \(str(k.sortTitle)), id \(str(k.id)))"
    }

    static func hit(_ h: EntryHit) -> String {
        let categories = h.categories.map(str).joined(separator: ",")
        let attributes = h.attributes.map { "\(str($0.key)):\(str($0.value))" }.joined(separator: ",")
        let highlights = h.highlights.map { "\($0.start)..<\($0.end)" }.joined(separator: ",")
        return "id \(str(h.id)) title \(str(h.title)) categories [\(categories)] weight \(h.weight) "
            + "attributes {\(attributes)} completion \(str(h.completion)) highlights [\(highlights)] rank \(key(h.rank))"
    }

    static func completion(_ c: QueryCompletion) -> String {
        "text \(str(c.text)) term \(str(c.term)) typos \(c.typos) best \(key(c.best))"
    }

    static func category(_ c: CategorySuggestion) -> String {
        "name \(str(c.name)) count \(c.count) token \(c.token.kind.rawValue):\(str(c.token.value)) "
            + "replacementText \(str(c.replacementText)) typos \(c.typos)"
    }

    static func facet(_ f: Facet) -> String {
        "\(str(f.name)): \(f.count)"
    }

    static func tokens(_ tokens: [SearchToken]) -> String {
        "[" + tokens.map { "\($0.kind.rawValue):\(str($0.value))" }.joined(separator: ", ") + "]"
    }

    static func request(_ r: SuggestRequest) -> String {
        "SuggestRequest(text: \(str(r.text)), tokens: \(tokens(r.tokens)), limits: (entries \(r.limits.entries), "
            + "categories \(r.limits.categories), completions \(r.limits.completions)), typos: .\(r.typos.rawValue), dedupe: \(r.dedupe))"
    }

    static func request(_ r: SearchRequest) -> String {
        "SearchRequest(text: \(str(r.text)), tokens: \(tokens(r.tokens)), pageSize: \(r.pageSize), "
            + "sort: .\(r.sort.rawValue), facets: \(r.facets), typos: .\(r.typos.rawValue))"
    }
}

/// A row-by-row diff of one section, or nil when the sections are identical.
func sectionDiff(_ name: String, expected: [String], got: [String], maximumRows: Int = 40) -> String? {
    if expected.count == got.count, zip(expected, got).allSatisfy({ bytesEqual($0, $1) }) {
        return nil
    }
    var lines = ["\(name): expected \(expected.count), got \(got.count)"]
    let n = max(expected.count, got.count)
    var shown = 0
    for i in 0..<n {
        let e = i < expected.count ? expected[i] : nil
        let g = i < got.count ? got[i] : nil
        if let e, let g, bytesEqual(e, g) {
            if n <= 12 { lines.append("    [\(i)]   \(e)") }
            continue
        }
        lines.append("  ✗ [\(i)] expected \(e ?? "(none)")")
        lines.append("        got      \(g ?? "(none)")")
        shown += 1
        if shown >= maximumRows {
            lines.append("    …")
            break
        }
    }
    return lines.joined(separator: "\n")
}

func suggestDiff(expected: SuggestResponse, got: SuggestResponse) -> String? {
    let diffs = [
        sectionDiff("entries", expected: expected.entries.map(Render.hit), got: got.entries.map(Render.hit)),
        sectionDiff("completions", expected: expected.completions.map(Render.completion),
                    got: got.completions.map(Render.completion)),
        sectionDiff("categories", expected: expected.categories.map(Render.category),
                    got: got.categories.map(Render.category)),
    ].compactMap { $0 }
    return diffs.isEmpty ? nil : diffs.joined(separator: "\n")
}

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
