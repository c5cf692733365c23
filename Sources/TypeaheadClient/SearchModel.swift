import Foundation
import Observation

/// One search field's state and what it shows, mapped one to one onto SwiftUI's `searchable`:
/// bind `text` and `tokens` to `.searchable(text:tokens:)`, show `suggestions` in
/// `.searchSuggestions` (an entry's `completion` with `.searchCompletion`, token suggestions with
/// ``select(_:)``), and call ``submit()`` from `.onSubmit(of: .search)`.
///
/// Every change of `text` or `tokens` is a keystroke: the model numbers it (one session, rising
/// revisions), cancels the request of the keystroke it supersedes (on Linux the HTTP request runs
/// to its end: see ``TypeaheadClient``), and never shows an answer older than the one shown — a
/// slow answer to "re" cannot replace the answer to "red". It debounces only if ``debounce`` is set.
///
/// Scopes (`.searchScopes`): ``describe()`` reads what the server offers into ``scopes`` and picks
/// the first; ``scope`` is what the field searches (nil: the default collection) and sets the
/// ``prompt``. A scoped answer comes in ``Suggestions/sections`` (one per collection, with the
/// merged completions in ``Suggestions/completions``) and, after ``submit()``, in
/// ``resultSections``, each paged on by ``loadMore(in:)``.
///
/// ```swift
/// let model = SearchModel(client: TypeaheadClient(baseURL: url))
/// await model.describe()         // scopes, the first picked: prompt "Departments and products"
/// model.text = "red sh"          // suggestions follow
/// await model.settled()          // (tests) wait for the newest answer
/// model.select(.token(model.suggestions.tokens[0]))   // adds [Shoes], text becomes "red "
/// await model.submit()           // results, totalHits; then loadMore()
/// ```
@MainActor
@Observable
public final class SearchModel {
    /// A suggestion the person can pick.
    public enum Suggestion: Sendable, Hashable {
        /// An entry: picking it sets the text to its completion.
        case entry(EntryHit)
        /// A completion of the text.
        case completion(Completion)
        /// A token to add; the text becomes its replacement text.
        case token(TokenSuggestion)
    }

    /// What the field shows under itself.
    public struct Suggestions: Sendable, Hashable {
        public var entries: [EntryHit] = []
        public var completions: [Completion] = []
        public var tokens: [TokenSuggestion] = []
        /// A scoped answer's sections, one per collection of the scope (``entries`` and ``tokens``
        /// are then empty; ``completions`` are the sections' merged).
        public var sections: [SuggestSection] = []
        /// The revision of the keystroke these answer (0: none yet).
        public var revision: UInt64 = 0
    }

    public let client: TypeaheadClient
    /// The field's text: complete words and the partial word being typed.
    public var text = "" { didSet { if text != oldValue { keystroke() } } }
    /// The field's tokens (chips).
    public var tokens: [SearchToken] = [] { didSet { if tokens != oldValue { keystroke() } } }
    /// The placeholder the field shows (`.searchable(…, prompt:)`): the picked scope's, else the
    /// server's default.
    public var prompt: String
    /// The scopes the server offers (``describe()``), for `.searchScopes`.
    public private(set) var scopes: [DescribeResponse.Scope] = []
    /// What the field searches: a scope of ``scopes``, or nil for the server's default collection.
    /// Picking one sets the ``prompt`` and asks again.
    public var scope: DescribeResponse.Scope? {
        didSet {
            guard scope != oldValue else { return }
            prompt = scope?.prompt ?? defaultPrompt
            keystroke()
        }
    }
    private var defaultPrompt: String
    public var limits: SuggestLimits
    /// Wait this long after a keystroke before asking (nil: ask at once).
    public var debounce: Duration?
    /// Results per page of ``submit()``.
    public var pageSize: Int

    public private(set) var suggestions = Suggestions()
    public private(set) var results: [EntryHit] = []
    /// A scoped search's sections: each collection's hits so far, total and facets
    /// (``loadMore(in:)`` pages one on). Empty for an unscoped search.
    public private(set) var resultSections: [SearchSection] = []
    public private(set) var totalHits = 0
    public private(set) var facets: [Facet] = []
    /// A Suggest or Search in flight.
    public private(set) var isSearching = false
    /// The last call's failure, cleared by the next success.
    public private(set) var error: TypeaheadError?

    /// The keystrokes of one field share a session; each gets the next revision.
    public let session: String
    private var revision: UInt64 = 0
    private var pending: Task<Void, Never>?
    private var nextPageToken = ""
    private var searched: (text: String, tokens: [SearchToken], scope: DescribeResponse.Scope?)?

    public init(client: TypeaheadClient, prompt: String = "Search", limits: SuggestLimits = .init(), pageSize: Int = 20,
                debounce: Duration? = nil) {
        self.client = client
        self.prompt = prompt
        defaultPrompt = prompt
        self.limits = limits
        self.pageSize = pageSize
        self.debounce = debounce
        session = UUID().uuidString
    }

    /// Reads the scopes the server offers, picks the first (as a scope picker shows it first), and
    /// takes the server's default prompt for the unscoped field. Failures land in ``error``.
    public func describe() async {
        do throws(TypeaheadError) {
            let offered = try await client.describe()
            if !offered.defaultPrompt.isEmpty { defaultPrompt = offered.defaultPrompt }
            scopes = offered.scopes
            error = nil
            if let first = scopes.first { scope = first } else { prompt = defaultPrompt }
        } catch {
            self.error = error
        }
    }

    /// Picks a suggestion: an entry or a completion sets the text; a token is added and the text
    /// becomes what the token leaves of it.
    public func select(_ suggestion: Suggestion) {
        switch suggestion {
        case .entry(let entry): text = entry.completion
        case .completion(let completion): text = completion.text
        case .token(let token):
            if !tokens.contains(token.token) { tokens.append(token.token) }
            text = token.replacementText
        }
    }

    /// Searches for the field's text and tokens: the first page of results.
    public func submit() async {
        pending?.cancel()
        searched = (text, tokens, scope)
        results = []
        resultSections = []
        nextPageToken = ""
        await page(nil)
    }

    /// The next page of the last ``submit()``, if there is one.
    public func loadMore() async {
        guard searched != nil, !nextPageToken.isEmpty else { return }
        await page(nextPageToken)
    }

    /// Whether ``loadMore()`` has a page to load.
    public var hasMore: Bool { !nextPageToken.isEmpty }

    /// The next page of a scoped search's section (its collection), if it has one: a Search that
    /// names the collection with the section's page token.
    public func loadMore(in collection: String) async {
        guard let searched, let index = resultSections.firstIndex(where: { $0.collection == collection }),
              !resultSections[index].nextPageToken.isEmpty else { return }
        isSearching = true
        defer { isSearching = false }
        do throws(TypeaheadError) {
            let answer = try await client.search(SearchRequest(text: searched.text, tokens: searched.tokens + (searched.scope?.tokens ?? []),
                                                               pageSize: pageSize, pageToken: resultSections[index].nextPageToken,
                                                               collection: collection))
            resultSections[index].hits += answer.hits
            resultSections[index].nextPageToken = answer.nextPageToken
            results += answer.hits
            error = nil
        } catch {
            self.error = error
        }
    }

    /// Waits until the newest keystroke's request has finished (tests and previews).
    public func settled() async {
        while let task = pending {
            await task.value
            if pending == task || pending == nil { break }
        }
    }

    // MARK: -

    private func keystroke() {
        revision += 1
        let request = SuggestRequest(text: text, tokens: tokens, limits: limits, session: session, revision: revision, scope: scope?.name)
        pending?.cancel()
        isSearching = true
        let debounce = self.debounce
        let client = self.client
        pending = Task { [weak self] in
            if let debounce {
                try? await Task.sleep(for: debounce)
                if Task.isCancelled { return }
            }
            do throws(TypeaheadError) {
                let answer = try await client.suggest(request)
                self?.show(answer, for: request.revision ?? 0)
            } catch {
                if !Task.isCancelled { self?.fail(error, revision: request.revision ?? 0) }
            }
        }
    }

    /// Shows `answer` unless a newer keystroke's answer is shown already.
    private func show(_ answer: SuggestResponse, for revision: UInt64) {
        guard revision > suggestions.revision else { return }
        suggestions = Suggestions(entries: answer.entries, completions: answer.completions, tokens: answer.categories,
                                  sections: answer.sections, revision: revision)
        error = nil
        if revision == self.revision { isSearching = false }
    }

    private func fail(_ error: TypeaheadError, revision: UInt64) {
        guard revision == self.revision else { return }
        self.error = error
        isSearching = false
    }

    private func page(_ token: String?) async {
        guard let searched else { return }
        isSearching = true
        defer { isSearching = false }
        do throws(TypeaheadError) {
            let answer = try await client.search(SearchRequest(text: searched.text, tokens: searched.tokens, pageSize: pageSize, pageToken: token,
                                                               scope: searched.scope?.name))
            if answer.sections.isEmpty {
                results += answer.hits
                totalHits = answer.totalHits
                facets = answer.facets
                nextPageToken = answer.nextPageToken
            } else {
                // Scoped: each collection's first page; its sections page on one by one.
                resultSections = answer.sections
                results = answer.sections.flatMap(\.hits)
                totalHits = answer.sections.reduce(0) { $0 + $1.totalHits }
                facets = []
                nextPageToken = ""
            }
            error = nil
        } catch {
            self.error = error
        }
    }
}
