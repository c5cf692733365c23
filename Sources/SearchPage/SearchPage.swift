import HTTP2

/// The search field in the browser: one page, embedded in the binary, that a node and a
/// coordinator serve at `GET /`. It is the demo an operator opens first and the smallest client
/// that shows the whole `searchable` model working against the cluster.
///
/// What it does, in the terms of SwiftUI's `searchable`:
/// - **text**: every keystroke sends a `Suggest` (the Connect JSON form of
///   `/typeahead.v1.Typeahead/Suggest`) numbered by `session` and `revision`. The superseded
///   request is aborted, and an answer older than the one shown is dropped, so the suggestions
///   never go back in time when answers arrive out of order.
/// - **suggestions**: entries with their highlighted title ranges (UTF-16 code units, as the
///   proto says, which is what a JavaScript string indexes), query completions and category
///   chips. Choosing an entry or a completion sets the text to its `completion`; choosing a chip
///   adds its token and sets the text to its `replacementText`.
/// - **tokens**: removable chips in the field (× or Backspace in an empty field).
/// - **submit**: Enter sends a `Search`; the page shows the exact total, the facets (a facet adds
///   its category token and searches again) and pages with `nextPageToken`.
/// - **scopes**: on load the page asks `GET /v1/describe` and builds a scope picker (each scope
///   by its label, then each collection; hidden with one collection and no scope). The field's
///   placeholder is the picked scope's prompt, else the default prompt; requests name the picked
///   `scope` or `collection`. A scoped answer is shown per section (one per collection: heading,
///   entries, chips; or total, facets, hits and a "More results" that pages the section by naming
///   its collection), with the merged completions once.
/// - For the operator: each keystroke's round-trip latency as the browser measured it, how many
///   shards answered, which failed, and the generation they read.
///
/// Every value from the server reaches the page through `textContent`, never as markup, so a
/// catalog title cannot inject script. A read token or search key can be given as `?key=…` in the
/// page's address; it is sent as the bearer token of every call.
///
/// ```swift
/// let server = RPCServer(configuration: configuration, methods: methods, telemetry: telemetry,
///                        healthServices: services, isReady: isReady, routes: SearchPage.routes)
/// ```
public enum SearchPage {
    /// The page's routes, for `RPCServer(routes:)`: `/` and `/index.html`.
    public static let routes: [String: @Sendable (HTTP2Request, HTTP2Responder) -> Void] = [
        "/": respond,
        "/index.html": respond,
    ]

    /// The page's bytes, encoded once.
    public static let body: [UInt8] = Array(html.utf8)

    /// The headers that go with it. The policy lets the page run its own inline script and style
    /// and talk to the server it came from, and nothing else: no other origin, no frames, no
    /// plugins.
    public static let headers: [HTTP2HeaderField] = [
        ("content-type", "text/html; charset=utf-8"),
        ("cache-control", "no-cache"),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("content-security-policy",
         "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
             + "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    ]

    @Sendable static func respond(_ request: HTTP2Request, _ responder: HTTP2Responder) {
        responder.respond(status: 200, headers: headers, body: body)
    }
}
