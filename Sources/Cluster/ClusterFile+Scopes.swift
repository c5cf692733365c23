import Wire

extension ClusterFile {
    /// A **scope**: what a search field's scope picker offers, several collections searched at
    /// once (federated: a scoped Suggest or Search answers one section per collection). Declared
    /// in the cluster file, listed by the Describe RPC, named by a request's `scope`.
    ///
    /// ```json
    /// "scopes": [
    ///   {"name": "all", "label": "All", "prompt": "Departments and products", "collections": ["departments", "products"]},
    ///   {"name": "garden", "label": "Garden", "prompt": "Search the garden", "collections": ["products"],
    ///    "tokens": [{"kind": "category", "value": "Garden"}]}
    /// ]
    /// ```
    public struct Scope: Sendable, Hashable {
        /// What a request's `scope` names: ``CollectionName``'s rule (it appears in URLs too).
        public var name: String
        /// What a scope picker shows: 1 to ``maximumTextBytes`` bytes.
        public var label: String
        /// The search field's placeholder while the scope is picked: 1 to ``maximumTextBytes`` bytes.
        public var prompt: String
        /// The collections searched, in the order of the answer's sections; each once.
        public var collections: [String]
        /// Tokens forced onto every collection's request (as a search key's are).
        public var tokens: [Typeahead_V1_SearchToken]

        /// The longest label or prompt, in bytes: text for one line of a UI, not a document.
        public static let maximumTextBytes = 256

        public init(name: String, label: String, prompt: String, collections: [String], tokens: [Typeahead_V1_SearchToken] = []) {
            self.name = name
            self.label = label
            self.prompt = prompt
            self.collections = collections
            self.tokens = tokens
        }
    }

    /// The scope named `name`, if the file declares it.
    public func scope(named name: String) -> Scope? {
        scopes.first { $0.name == name }
    }

    /// Reads `scopes` (after the collections, which it names): an array of scopes, names unique,
    /// every collection one of the file's.
    static func parseScopes(_ value: Any, collections: [Collection], _ fail: (String, String) -> ClusterFileError)
        throws(ClusterFileError) -> [Scope] {
        guard let list = value as? [Any] else {
            throw fail("scopes", "must be an array of {\"name\", \"label\", \"prompt\", \"collections\"}")
        }
        var scopes: [Scope] = []
        for (index, item) in list.enumerated() {
            let at = "scopes[\(index)]"
            guard let object = item as? [String: Any] else { throw fail(at, "must be an object with name, label, prompt and collections") }
            try allowKeys(object, ["name", "label", "prompt", "collections", "tokens"], at: at, fail)
            guard let name = object["name"] as? String else { throw fail("\(at).name", "must be a string") }
            if let problem = CollectionName.problem(name) { throw fail("\(at).name", problem) }
            guard !scopes.contains(where: { $0.name == name }) else { throw fail("\(at).name", "\"\(name)\" names two scopes") }
            func text(_ key: String) throws(ClusterFileError) -> String {
                guard let text = object[key] as? String, (1...Scope.maximumTextBytes).contains(text.utf8.count) else {
                    throw fail("\(at).\(key)", "must be a string of 1 to \(Scope.maximumTextBytes) bytes")
                }
                return text
            }
            let label = try text("label")
            let prompt = try text("prompt")
            guard let names = object["collections"] as? [Any], !names.isEmpty else {
                throw fail("\(at).collections", "must be a non-empty array of collection names")
            }
            var covered: [String] = []
            for (c, item) in names.enumerated() {
                guard let collection = item as? String, collections.contains(where: { $0.name == collection }) else {
                    throw fail("\(at).collections[\(c)]", "\(item) is not a collection of this file (collections: "
                                                          + collections.map(\.name).joined(separator: ", ") + ")")
                }
                guard !covered.contains(collection) else { throw fail("\(at).collections[\(c)]", "\"\(collection)\" is listed twice") }
                covered.append(collection)
            }
            // A scope's token goes to every collection it covers: its kind must be one they all take.
            let shared = covered.compactMap { name in collections.first { $0.name == name }?.filterableAttributes }
                .reduce(nil as Set<String>?) { common, next in common.map { $0.intersection(next) } ?? Set(next) } ?? []
            let tokens = try parseTokens(object["tokens"], at: "\(at).tokens", kinds: ["category"] + shared.sorted(), fail)
            scopes.append(Scope(name: name, label: label, prompt: prompt, collections: covered, tokens: tokens))
        }
        return scopes
    }

    /// A scope's fixed tokens: `{"kind": KIND, "value": VALUE}` each, KIND one of `kinds`
    /// ("category", or an attribute every collection of the scope declares filterable), values
    /// within the API's limit, at most the API's token count.
    private static func parseTokens(_ value: Any?, at path: String, kinds: [String], _ fail: (String, String) -> ClusterFileError)
        throws(ClusterFileError) -> [Typeahead_V1_SearchToken] {
        guard let value else { return [] }
        guard let list = value as? [Any], list.count <= WireLimits.maximumTokens else {
            throw fail(path, "must be an array of at most \(WireLimits.maximumTokens) {\"kind\": \"category\", \"value\": NAME}")
        }
        var tokens: [Typeahead_V1_SearchToken] = []
        for (index, item) in list.enumerated() {
            let at = "\(path)[\(index)]"
            guard let object = item as? [String: Any] else { throw fail(at, "must be an object with kind and value") }
            try allowKeys(object, ["kind", "value"], at: at, fail)
            guard let kind = object["kind"] as? String, kinds.contains(kind) else {
                throw fail("\(at).kind", "must be " + kinds.map { "\"\($0)\"" }.joined(separator: " or ")
                           + " (\"category\", or an attribute every collection of the scope declares filterable)")
            }
            guard let text = object["value"] as? String, (1...WireLimits.maximumTokenValueBytes).contains(text.utf8.count) else {
                throw fail("\(at).value", "must be a string of 1 to \(WireLimits.maximumTokenValueBytes) bytes")
            }
            tokens.append(Typeahead_V1_SearchToken(kind: kind, value: text))
        }
        return tokens
    }
}
