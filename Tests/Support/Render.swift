// Rendering and field-by-field comparison of responses, with readable diffs.
//
// Every value is rendered to one line that shows every field; strings are quoted with the
// invisible scalars (nonspacing marks, format and control characters) escaped, so "café" (NFC)
// and "cafe\u{301}" (NFD) render differently. Two values are considered equal when their
// renderings are byte-identical, which is stricter than Swift's `==` on `String` (canonical
// equivalence).

import Index

public enum Render {
    public static func str(_ s: String) -> String {
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

    public static func key(_ k: RankKey) -> String {
        "(typos \(k.typos), field \(k.field), exact \(k.exact), startsWith \(k.startsWith), weight \(k.weight), sortTitle \(str(k.sortTitle)), id \(str(k.id)))"
    }

    public static func hit(_ h: EntryHit) -> String {
        let categories = h.categories.map(str).joined(separator: ",")
        let attributes = h.attributes.map { "\(str($0.key)):\(str($0.value))" }.joined(separator: ",")
        let highlights = h.highlights.map { "\($0.start)..<\($0.end)" }.joined(separator: ",")
        return "id \(str(h.id)) title \(str(h.title)) categories [\(categories)] weight \(h.weight) "
            + "attributes {\(attributes)} completion \(str(h.completion)) highlights [\(highlights)] rank \(key(h.rank))"
    }

    public static func completion(_ c: QueryCompletion) -> String {
        "text \(str(c.text)) spelling \(str(c.spelling)) term \(str(c.term)) typos \(c.typos) best \(key(c.best))"
    }

    public static func category(_ c: CategorySuggestion) -> String {
        "name \(str(c.name)) count \(c.count) token \(c.token.kind.rawValue):\(str(c.token.value)) "
            + "replacementText \(str(c.replacementText)) typos \(c.typos)"
    }

    public static func facet(_ f: Facet) -> String {
        "\(str(f.name)): \(f.count)"
    }

    public static func tokens(_ tokens: [SearchToken]) -> String {
        "[" + tokens.map { "\($0.kind.rawValue):\(str($0.value))" }.joined(separator: ", ") + "]"
    }

    public static func request(_ r: SuggestRequest) -> String {
        "SuggestRequest(text: \(str(r.text)), tokens: \(tokens(r.tokens)), limits: (entries \(r.limits.entries), "
            + "categories \(r.limits.categories), completions \(r.limits.completions)), typos: .\(r.typos.rawValue), dedupe: \(r.dedupe))"
    }

    public static func request(_ r: SearchRequest) -> String {
        "SearchRequest(text: \(str(r.text)), tokens: \(tokens(r.tokens)), pageSize: \(r.pageSize), "
            + "sort: .\(r.sort.rawValue), facets: \(r.facets), typos: .\(r.typos.rawValue))"
    }
}

/// A row-by-row diff of one section, or nil when the sections are identical.
public func sectionDiff(_ name: String, expected: [String], got: [String], maximumRows: Int = 40) -> String? {
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

public func suggestDiff(expected: SuggestResponse, got: SuggestResponse) -> String? {
    let diffs = [
        sectionDiff("entries", expected: expected.entries.map(Render.hit), got: got.entries.map(Render.hit)),
        sectionDiff("completions", expected: expected.completions.map(Render.completion),
                    got: got.completions.map(Render.completion)),
        sectionDiff("categories", expected: expected.categories.map(Render.category),
                    got: got.categories.map(Render.category)),
    ].compactMap { $0 }
    return diffs.isEmpty ? nil : diffs.joined(separator: "\n")
}


/// Strings compare as their UTF-8 bytes (never by canonical equivalence).
public func bytesEqual(_ a: String, _ b: String) -> Bool {
    a.utf8.elementsEqual(b.utf8)
}
