/// What a valid line said that the reader had to interpret: blank optional fields read as absent,
/// and values written the way CSV converters and database dumps write them, read as meant.
///
/// None of these makes a line invalid; each is counted (with the first line numbers) in
/// ``CatalogSummary/notices`` so that a build can say, once per kind, what it read how:
///
/// ```
/// warning: 3 lines have "category": "" (read as no category): lines 4, 17, 88
/// ```
///
/// Required fields (`id`, `title`) stay strict, and so do wrong types: those lines are invalid.
public struct CatalogNotices: OptionSet, Sendable, Hashable, CaseIterable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// `"category": ""`: no category.
    public static let blankCategory = CatalogNotices(rawValue: 1 << 0)
    /// `""` inside `"categories"`: left out.
    public static let blankInCategories = CatalogNotices(rawValue: 1 << 1)
    /// `""` inside `"aliases"`: left out.
    public static let blankAlias = CatalogNotices(rawValue: 1 << 2)
    /// `"description": ""`: no description.
    public static let blankDescription = CatalogNotices(rawValue: 1 << 3)
    /// `"weight": ""`: no weight (0).
    public static let blankWeight = CatalogNotices(rawValue: 1 << 4)
    /// `"weight": "12"` (or `"12.0"`, `"1e3"`): the number, read as the JSON API reads integers.
    public static let weightAsText = CatalogNotices(rawValue: 1 << 5)
    /// `"price": 19.9` or `"new": true` in `"attributes"`: the value's JSON text, "19.9", "true".
    public static let attributeAsText = CatalogNotices(rawValue: 1 << 6)
    /// `"price": null` in `"attributes"`: the attribute is left out.
    public static let nullAttribute = CatalogNotices(rawValue: 1 << 7)

    public static let allCases: [CatalogNotices] = [.blankCategory, .blankInCategories, .blankAlias, .blankDescription,
                                                    .blankWeight, .weightAsText, .attributeAsText, .nullAttribute]

    /// What the lines had and how they were read, as a warning says it (after "has" or "have").
    public var explanation: String {
        switch self {
        case .blankCategory: #""category": "" (read as no category)"#
        case .blankInCategories: #""" in "categories" (left out)"#
        case .blankAlias: #""" in "aliases" (left out)"#
        case .blankDescription: #""description": "" (read as no description)"#
        case .blankWeight: #""weight": "" (read as weight 0)"#
        case .weightAsText: #""weight" as a string (read as the number)"#
        case .attributeAsText: #"number or boolean attribute values (read as their JSON text)"#
        case .nullAttribute: #"null attribute values (left out)"#
        default: "notices \(rawValue)"
        }
    }
}

/// How many lines had each notice, and the first few of them: what a build prints.
public struct CatalogNoticeTally: Sendable, Hashable {
    /// Line numbers kept per kind.
    public static let linesKept = 5

    public private(set) var counts: [UInt16: Int] = [:]
    public private(set) var firstLines: [UInt16: [Int]] = [:]

    public init() {}

    /// Lines with `notice`.
    public func count(_ notice: CatalogNotices) -> Int { counts[notice.rawValue] ?? 0 }

    mutating func record(_ notices: CatalogNotices, line: Int) {
        guard !notices.isEmpty else { return }
        for notice in CatalogNotices.allCases where notices.contains(notice) {
            counts[notice.rawValue, default: 0] += 1
            if firstLines[notice.rawValue, default: []].count < Self.linesKept { firstLines[notice.rawValue, default: []].append(line) }
        }
    }

    /// One line per kind seen, in a fixed order:
    /// `3 lines have "category": "" (read as no category): lines 4, 17, 88`, or
    /// `1 line has "" in "aliases" (left out): line 2`.
    public var warnings: [String] {
        CatalogNotices.allCases.compactMap { notice in
            let count = self.count(notice)
            guard count > 0 else { return nil }
            let lines = firstLines[notice.rawValue, default: []].map(String.init).joined(separator: ", ")
            let more = count > Self.linesKept ? ", …" : ""
            let one = count == 1
            return "\(count) \(one ? "line has" : "lines have") \(notice.explanation): \(one ? "line" : "lines") \(lines)\(more)"
        }
    }
}
