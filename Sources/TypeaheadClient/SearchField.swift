#if canImport(SwiftUI)
import SwiftUI

/// A search field over a ``SearchModel``: the code of the <doc:PuttingTheFieldInAnApp> article,
/// compiled wherever SwiftUI is (Apple platforms), so that the article cannot fall out of date.
///
/// ```swift
/// SearchField(model: SearchModel(client: TypeaheadClient(baseURL: url), prompt: "Departments and products"))
/// ```
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public struct SearchField: View {
    @Bindable var model: SearchModel

    public init(model: SearchModel) {
        self.model = model
    }

    public var body: some View {
        NavigationStack {
            List(model.results) { hit in
                VStack(alignment: .leading) {
                    Text(hit.title)
                    Text(hit.categories.joined(separator: ", ")).font(.caption).foregroundStyle(.secondary)
                }
                .task { if hit.id == model.results.last?.id { await model.loadMore() } }
            }
            .navigationTitle("Search")
        }
        .searchable(text: $model.text, tokens: $model.tokens, prompt: Text(model.prompt)) { token in
            Text(token.value)
        }
        .searchSuggestions {
            ForEach(model.suggestions.completions, id: \.self) { completion in
                Text(completion.text).searchCompletion(completion.text)
            }
            ForEach(model.suggestions.tokens, id: \.self) { suggestion in
                Button("Filter by \(suggestion.name) (\(suggestion.count))") { model.select(.token(suggestion)) }
            }
            ForEach(model.suggestions.entries) { entry in
                Text(entry.title).searchCompletion(entry.completion)
            }
            // A scoped answer: one section per collection of the scope.
            ForEach(model.suggestions.sections, id: \.collection) { section in
                Section(section.collection) {
                    ForEach(section.entries) { entry in
                        Text(entry.title).searchCompletion(entry.completion)
                    }
                }
            }
        }
        .searchScopes($model.scope) {
            Text("Default").tag(DescribeResponse.Scope?.none)
            ForEach(model.scopes) { scope in
                Text(scope.label).tag(DescribeResponse.Scope?.some(scope))
            }
        }
        .onSubmit(of: .search) { Task { await model.submit() } }
        .task { await model.describe() }  // the scopes, the first picked, and its prompt
    }
}
#endif
