import Analysis

/// Turns the facts of an answer into what a client sees, for the client's text: completion
/// strings, the replacement text of category chips, and highlights.
///
/// It is the one definition of presentation (Semantics.md, "Sections"). A node presents its own
/// answers through it; a coordinator presents a merged ``ResponseForm/shardPart`` answer through it,
/// so a client sees the same strings whatever the sharding.
///
/// ```swift
/// var presenter = Presenter(text: "red sh", typos: .auto)
/// var merged = SuggestResponse(/* facts merged from every shard */)
/// presenter.present(&merged)     // completions become "red Shoes", chips replace the text by "red "
/// ```
///
/// Complexity: parsing the text is O(length of the text); each hit's highlights cost one analysis
/// of its title (O(title length)) plus one automaton step per title word and query word.
/// Not `Sendable`: it keeps the query's edit automata, which matching reuses; make one per request.
public struct Presenter {
    /// The field's text up to the partial word: what a completion's spelling follows and what a
    /// chosen category chip leaves in the field.
    public let textBeforePartial: String
    private var words: [QueryWord]
    private let analyzer: Analyzer

    public init(text: String, typos: TypoMode, analyzer: Analyzer = Analyzer()) {
        let parsed = analyzer.parseQuery(text)
        textBeforePartial = parsed.textBeforePartial
        words = parsed.completeWords.map { QueryWord($0, isPartial: false, typos: typos) }
            + (parsed.partialWord.map { [QueryWord($0, isPartial: true, typos: typos)] } ?? [])
        self.analyzer = analyzer
    }

    init(_ query: PreparedQuery, analyzer: Analyzer) {
        textBeforePartial = query.parsed.textBeforePartial
        words = query.complete + (query.partial.map { [$0] } ?? [])
        self.analyzer = analyzer
    }

    /// The field's text once this completion is chosen.
    public func completionText(spelling: String) -> String {
        textBeforePartial + spelling
    }

    /// A hit as the client sees it: `completion` is the title, `highlights` the title words the
    /// query's words match.
    public mutating func present(_ hit: inout EntryHit) {
        hit.completion = hit.title
        hit.highlights = highlights(inTitle: hit.title)
    }

    /// The ranges of `title` the query's words match (what ``present(_:)-1x9mv`` puts in a hit).
    public mutating func highlights(inTitle title: String) -> [Highlight] {
        // The terms' UTF-8 views as they are (an array of each cost a coordinator three allocations a hit).
        Self.highlights(titleWords: analyzer.words(in: title).lazy.map { ($0.term.utf8, $0.utf16Range) }, queryWords: &words)
    }

    /// A suggest answer as the client sees it (every section keeps its length; completions take
    /// their presented order, ``PresentedCompletionOrder``).
    public mutating func present(_ response: inout SuggestResponse) {
        for index in response.entries.indices { present(&response.entries[index]) }
        response.completions = PresentedCompletionOrder.presented(response.completions)
        for index in response.completions.indices {
            response.completions[index].text = completionText(spelling: response.completions[index].spelling)
        }
        for index in response.categories.indices { present(&response.categories[index]) }
    }

    /// A search page as the client sees it.
    public mutating func present(_ response: inout SearchResponse) {
        for index in response.hits.indices { present(&response.hits[index]) }
    }

    /// A chip as the client sees it: choosing it adds its token (its kind, its name as the value)
    /// and removes the partial word.
    public func present(_ category: inout CategorySuggestion) {
        category.token = SearchToken(kind: category.token.kind, value: category.name)
        category.replacementText = textBeforePartial
    }

    /// One range per title word that some query word matches within its budget (`dist` for
    /// complete words, `pdist` for the partial word), in title order. Shared by the presenter
    /// (title words from analysing the title) and the engine (title words stored with the
    /// document), so both highlight by one rule.
    static func highlights<Words: Sequence, Term: Collection>(titleWords: Words, queryWords: inout [QueryWord]) -> [Highlight]
        where Words.Element == (Term, Range<Int>), Term.Element == UInt8 {
        guard !queryWords.isEmpty else { return [] }
        var result: [Highlight] = []
        for (term, range) in titleWords where matchesAny(term, &queryWords) {
            result.append(Highlight(start: range.lowerBound, end: range.upperBound))
        }
        return result
    }

    /// Whether some query word matches `term` within its budget: the rule of one highlight.
    static func matchesAny<Term: Collection>(_ term: Term, _ queryWords: inout [QueryWord]) -> Bool where Term.Element == UInt8 {
        for i in queryWords.indices where queryWords[i].distance(to: term) != nil { return true }
        return false
    }
}
