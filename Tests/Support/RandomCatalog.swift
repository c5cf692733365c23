// Deterministic random catalogs and keystroke workloads for the exactness tests.

import Catalog
import Index

/// The seeded generator of the tests: Catalog's SplitMix64 (same on every platform, so a seed
/// reproduces a run), with the helpers the workloads use.
public struct SeededGenerator: RandomNumberGenerator {
    private var base: SplitMix64

    public init(seed: UInt64) {
        base = SplitMix64(seed: seed)
    }

    public mutating func next() -> UInt64 { base.next() }

    public mutating func chance(_ p: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < p
    }

    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    public mutating func pick<T>(_ items: [T]) -> T {
        items[Int.random(in: 0..<items.count, using: &self)]
    }
}

/// Small catalogs over a tiny vocabulary, so that words share prefixes, titles collide and
/// weights tie: the cases where ranking and truncation go wrong.
public struct RandomCatalog {
    /// Always in the vocabulary: one family of shared prefixes.
    public static let core = ["app", "apple", "applet", "apply", "Apple", "application"]

    /// Drawn from to fill the vocabulary up to its size.
    public static let pool = [
        "apps", "appliance", "banana", "band", "bandana", "café", "cafe", "cafe\u{301}", "CAFÉ",
        "red", "read", "running", "shoe", "shoes", "garden", "guard", "hose", "phone", "iPhone",
        "pro", "max", "mini", "O'Brien", "Straße", "strasse", "Zürich", "zurich", "Київ", "Киев",
        "Москва", "東京", "京都", "12", "2²", "naïve", "naive", "x", "ab", "coöperate", "über",
        "pneumonoultramicroscopicsilicovolcanoconiosis", "pneumonoultramicroscopicsilicovolcanos",
        "lamp", "lamps", "table", "tablet", "stable",
    ]

    public static let categoryPool = [
        "Fruit", "Phones", "Home & Garden", "Café", "Cafe\u{301}", "Books", "Книги", "Apps",
        "Applied Science", "Music", "東京 Store", "Red", "apple", "Garden Tools",
    ]

    public static let filler = ["the", "for", "with", "and", "a", "of", "new"]
    public static let weights: [UInt64] = [0, 0, 0, 0, 1, 1, 1, 2, 3, 5, 7, 10, 42, 100, 1000, (1 << 53) - 1]
    public static let separators = [" ", " ", " ", " ", "-", ", ", " & ", "  ", "/"]

    public var vocabulary: [String]
    public var categories: [String]
    private var nextId = 0
    /// Entries deleted by update batches, to bring back later.
    private var graveyard: [CatalogEntry] = []
    private var idPrefix: String

    public init(vocabularySize: Int, rng: inout SeededGenerator, idPrefix: String = "e") {
        var words = RandomCatalog.core
        for w in RandomCatalog.pool.shuffled(using: &rng) where words.count < vocabularySize {
            words.append(w)
        }
        vocabulary = words
        categories = Array(RandomCatalog.categoryPool.shuffled(using: &rng).prefix(rng.int(4...RandomCatalog.categoryPool.count)))
        self.idPrefix = idPrefix
    }

    public mutating func newId(_ prefix: String? = nil) -> String {
        nextId += 1
        return "\(prefix ?? idPrefix)\(nextId)"
    }

    public func randomWord(_ rng: inout SeededGenerator) -> String {
        var w = rng.pick(vocabulary)
        if rng.chance(0.15), let first = w.first {
            w = first.uppercased() + w.dropFirst()
        } else if rng.chance(0.03) {
            w = w.uppercased()
        }
        return w
    }

    public func randomPhrase(_ rng: inout SeededGenerator, words: ClosedRange<Int>) -> String {
        var text = ""
        for i in 0..<rng.int(words) {
            if i > 0 { text += rng.pick(RandomCatalog.separators) }
            text += randomWord(&rng)
        }
        return text
    }

    public func randomTitle(_ rng: inout SeededGenerator, existing: [CatalogEntry]) -> String {
        if !existing.isEmpty, rng.chance(0.1) {
            return rng.pick(existing).title    // a duplicate title with another id
        }
        if rng.chance(0.015) {
            return rng.pick(["—", "!!!", "(?)"])   // a title without words
        }
        var title = randomPhrase(&rng, words: rng.chance(0.05) ? 5...9 : 1...4)
        if rng.chance(0.05) { title = " " + title + "." }
        return title
    }

    public mutating func randomEntry(_ rng: inout SeededGenerator, existing: [CatalogEntry], id: String? = nil) -> CatalogEntry {
        let title = randomTitle(&rng, existing: existing)
        var entryCategories: [String] = []
        for _ in 0..<rng.pick([0, 1, 1, 1, 2, 2, 3]) {
            entryCategories.append(rng.pick(categories))
        }
        if !entryCategories.isEmpty, rng.chance(0.05) {
            entryCategories.append(entryCategories[0])     // a duplicate category
        }
        var aliases: [String] = []
        if rng.chance(0.3) {
            for _ in 0..<rng.int(1...2) {
                aliases.append(randomPhrase(&rng, words: 1...2))
            }
        }
        var description: String? = nil
        if rng.chance(0.4) {
            var words: [String] = []
            for _ in 0..<rng.int(2...6) {
                words.append(rng.chance(0.4) ? rng.pick(RandomCatalog.filler) : randomWord(&rng))
            }
            description = words.joined(separator: " ")
        }
        var attributes: [String: String] = [:]
        if rng.chance(0.3) {
            attributes["price"] = "\(rng.int(1...99)).99"
            if rng.chance(0.5) { attributes["color"] = randomWord(&rng) }
            if rng.chance(0.2) { attributes["Größe"] = "\(rng.int(30...48))" }
            if rng.chance(0.2) { attributes["Image"] = "img/\(rng.int(1...9)).png" }
        }
        return CatalogEntry(id: id ?? newId(), title: title, categories: entryCategories,
                            weight: rng.pick(RandomCatalog.weights), aliases: aliases,
                            description: description, attributes: attributes)
    }

    public mutating func randomEntries(_ count: Int, _ rng: inout SeededGenerator) -> [CatalogEntry] {
        var entries: [CatalogEntry] = []
        for _ in 0..<count {
            entries.append(randomEntry(&rng, existing: entries))
        }
        return entries
    }

    /// A batch of updates: new entries, re-weighted and rewritten existing ones, deleted ids
    /// brought back, and deletions (including ids that do not exist). Each id at most once among
    /// the upserts (a batch with an id twice is refused).
    public mutating func randomUpdateBatch(_ rng: inout SeededGenerator, current: [CatalogEntry])
        -> (upserts: [CatalogEntry], deletes: [String]) {
        var upserts: [CatalogEntry] = []
        var deletes: [String] = []
        for _ in 0..<rng.int(1...25) {
            let roll = rng.int(0...11)
            if roll < 3 || current.isEmpty {
                upserts.append(randomEntry(&rng, existing: current, id: newId("n")))
            } else if roll < 5 {
                var e = rng.pick(current)
                e.weight = rng.pick(RandomCatalog.weights)
                upserts.append(e)
            } else if roll < 7 {
                var e = rng.pick(current)
                if rng.chance(0.7) { e.title = randomTitle(&rng, existing: current) }
                if rng.chance(0.5) { e.categories = rng.chance(0.2) ? [] : [rng.pick(categories)] }
                if rng.chance(0.3) { e.aliases = rng.chance(0.5) ? [] : [randomPhrase(&rng, words: 1...2)] }
                if rng.chance(0.2) { e.description = rng.chance(0.5) ? nil : randomPhrase(&rng, words: 1...3) }
                upserts.append(e)
            } else if roll == 7 {
                // An existing id rewritten from scratch.
                upserts.append(randomEntry(&rng, existing: current, id: rng.pick(current).id))
            } else if roll == 8, !graveyard.isEmpty {
                var e = graveyard.remove(at: rng.int(0...(graveyard.count - 1)))
                if rng.chance(0.5) { e.weight = rng.pick(RandomCatalog.weights) }
                upserts.append(e)
            } else if roll < 11 {
                let e = rng.pick(current)
                deletes.append(e.id)
                graveyard.append(e)
            } else {
                deletes.append(rng.chance(0.5) ? "missing-\(rng.int(0...999))" : rng.pick(current).id)
            }
        }
        // Keep the first entry of an id picked twice.
        var seen = Set<String>()
        upserts = upserts.filter { seen.insert($0.id).inserted }
        return (upserts, deletes)
    }
}

/// Requests shaped like what a search field sends while someone types.
public enum Workload {
    public static let letters = Array("abcdefghijklmnopqrstuvwxyzäé")

    /// Injects one typo (substitution, transposition, deletion or insertion) into one word of
    /// at least 4 characters, if there is one.
    public static func injectTypo(_ text: String, _ rng: inout SeededGenerator) -> String {
        var chars = Array(text)
        // Runs of letters/numbers as the words to choose from.
        var words: [Range<Int>] = []
        var start: Int? = nil
        for i in 0...chars.count {
            let isWord = i < chars.count && (chars[i].isLetter || chars[i].isNumber)
            if isWord, start == nil { start = i }
            if !isWord, let s = start {
                if i - s >= 4 { words.append(s..<i) }
                start = nil
            }
        }
        guard !words.isEmpty else { return text }
        let w = rng.pick(words)
        switch rng.int(0...3) {
        case 0:
            chars[rng.int(w.lowerBound...(w.upperBound - 1))] = rng.pick(letters)
        case 1:
            let i = rng.int(w.lowerBound...(w.upperBound - 2))
            chars.swapAt(i, i + 1)
        case 2:
            chars.remove(at: rng.int(w.lowerBound...(w.upperBound - 1)))
        default:
            chars.insert(rng.pick(letters), at: rng.int(w.lowerBound...w.upperBound))
        }
        return String(chars)
    }

    public static func randomLimits(_ rng: inout SeededGenerator) -> SuggestLimits {
        SuggestLimits(entries: rng.int(0...15), categories: rng.int(0...4), completions: rng.int(0...6))
    }

    public static func randomTokens(for entry: CatalogEntry?, categories: [String], _ rng: inout SeededGenerator) -> [SearchToken] {
        let roll = rng.int(0...19)
        let own = entry?.categories.isEmpty == false ? entry!.categories : nil
        switch roll {
        case 0...13:
            return []
        case 14...16:
            if let own { return [.category(rng.pick(own))] }
            return [.category(rng.pick(categories))]
        case 17:
            return [.category(rng.pick(categories))]
        case 18:
            return [.category(own.map { rng.pick($0) } ?? rng.pick(categories)), .category(rng.pick(categories))]
        default:
            return [.category(rng.chance(0.5) ? "No Such Category" : rng.pick(categories).lowercased())]
        }
    }

    /// The texts typed on the way to a title (or alias): every prefix, sometimes with a typo,
    /// sometimes with a trailing space.
    public static func keystrokeTexts(for entry: CatalogEntry, _ rng: inout SeededGenerator) -> [String] {
        var source = entry.title
        if !entry.aliases.isEmpty, rng.chance(0.25) {
            source = rng.pick(entry.aliases)
        }
        if rng.chance(0.3) {
            source = injectTypo(source, &rng)
            if rng.chance(0.3) {
                source = injectTypo(source, &rng)   // two edits: within budget for 8+ letters
            }
        }
        var texts: [String] = []
        let chars = Array(source)
        // Usually by characters; sometimes by scalars, which cuts "e\u{301}" between its scalars.
        if rng.chance(0.1) {
            let scalars = Array(source.unicodeScalars)
            for n in 1...max(1, scalars.count) {
                var s = String.UnicodeScalarView()
                s.append(contentsOf: scalars.prefix(n))
                texts.append(String(s))
            }
        } else {
            for n in 1...max(1, chars.count) {
                texts.append(String(chars.prefix(n)))
            }
        }
        let shout = rng.chance(0.05)   // caps lock: analysis folds case, so the same words
        return texts.map {
            let text = shout ? $0.uppercased() : $0
            return rng.chance(0.12) ? text + " " : text
        }
    }

    /// `count` suggest requests following keystroke sequences over `entries`.
    public static func suggestRequests(entries: [CatalogEntry], categories: [String], vocabulary: [String],
                                count: Int, _ rng: inout SeededGenerator) -> [SuggestRequest] {
        var requests: [SuggestRequest] = []
        func add(_ text: String, entry: CatalogEntry?) {
            requests.append(SuggestRequest(text: text,
                                           tokens: randomTokens(for: entry, categories: categories, &rng),
                                           limits: randomLimits(&rng),
                                           typos: rng.chance(0.8) ? .auto : .off,
                                           dedupe: rng.chance(0.7)))
        }
        while requests.count < count {
            let roll = rng.int(0...19)
            if roll == 0 || entries.isEmpty {
                add(rng.pick(["", " ", "-", "'"]), entry: nil)
            } else if roll == 1, !vocabulary.isEmpty {
                // Words from the vocabulary in any combination, some matching nothing.
                var words: [String] = []
                for _ in 0..<rng.int(1...3) {
                    words.append(rng.chance(0.85) ? rng.pick(vocabulary) : rng.pick(["zzz", "qwerty", "appx", "bananas"]))
                }
                var text = words.joined(separator: " ")
                if rng.chance(0.3) { text = injectTypo(text, &rng) }
                if rng.chance(0.3) { text += " " }
                add(text, entry: nil)
            } else {
                let entry = rng.pick(entries)
                for text in keystrokeTexts(for: entry, &rng) where requests.count < count {
                    add(text, entry: entry)
                }
            }
        }
        return requests
    }

    /// The requests, some with an attribute token added (half of them a kind of `kinds`' first,
    /// else another of `kinds`): a value an entry has, or one no entry has.
    public static func withAttributeTokens(_ requests: [SuggestRequest], entries: [CatalogEntry], kinds: [String],
                                           _ rng: inout SeededGenerator) -> [SuggestRequest] {
        var values: [String: [String]] = [:]
        for entry in entries {
            for key in kinds { if let value = entry.attributes[key], !value.isEmpty { values[key, default: []].append(value) } }
        }
        return requests.map { request in
            var request = request
            let roll = rng.int(0...9)
            let kind = roll < 3 ? kinds[0] : rng.pick(kinds)
            if roll < 4, let known = values[kind] {
                request.tokens.append(SearchToken(kind: .init(kind), value: rng.pick(known)))
            } else if roll == 4 {
                request.tokens.append(SearchToken(kind: .init(kind), value: "no such value"))
            }
            return request
        }
    }

    /// Search requests with the same texts and tokens.
    public static func searchRequests(from suggests: [SuggestRequest], pageSizes: ClosedRange<Int> = 1...7,
                               _ rng: inout SeededGenerator) -> [SearchRequest] {
        suggests.map {
            SearchRequest(text: $0.text, tokens: $0.tokens, pageSize: rng.int(pageSizes),
                          sort: rng.chance(0.7) ? .relevance : .weight, facets: rng.chance(0.6),
                          typos: $0.typos)
        }
    }
}

extension CatalogEntry {
    /// A JSON line for failure reports (the catalog format; attributes sorted by key).
    public var reportLine: String {
        func q(_ s: String) -> String {
            var out = "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                default:
                    if scalar.value < 0x20 || scalar.properties.generalCategory == .nonspacingMark
                        || scalar.properties.generalCategory == .format {
                        out += jsonEscape(scalar.value)
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
            return out + "\""
        }
        var parts = ["\"id\":\(q(id))", "\"title\":\(q(title))"]
        if !categories.isEmpty { parts.append("\"categories\":[\(categories.map(q).joined(separator: ","))]") }
        parts.append("\"weight\":\(weight)")
        if !aliases.isEmpty { parts.append("\"aliases\":[\(aliases.map(q).joined(separator: ","))]") }
        if let description { parts.append("\"description\":\(q(description))") }
        if !attributes.isEmpty {
            let sorted = attributes.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            parts.append("\"attributes\":{\(sorted.map { "\(q($0.key)):\(q($0.value))" }.joined(separator: ","))}")
        }
        return "{" + parts.joined(separator: ",") + "}"
    }
}

/// `\uXXXX` for a BMP scalar (JSON escape).
public func jsonEscape(_ value: UInt32) -> String {
    let hex = String(value, radix: 16, uppercase: true)
    return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
}
