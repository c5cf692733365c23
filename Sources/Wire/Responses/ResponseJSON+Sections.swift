// The JSON of a scoped (federated) answer's sections and of Describe: written by the same
// writers as the unscoped answers' fields, so a section's entries read exactly as a Suggest to
// its collection would write them.
extension ResponseJSON {
    /// `SuggestResponse.sections`: each section's every field, defaults included.
    static func write(_ sections: [Typeahead_V1_SuggestSection], to json: inout JSONWriter) {
        json.array(sections) { json, section in
            json.object { json in
                json.key("collection"); json.string(section.collection)
                json.key("entries"); write(section.entries, to: &json)
                json.key("categories"); write(section.categories, to: &json)
                json.key("completions")
                json.array(section.completions) { json, completion in
                    json.object { json in json.key("text"); json.string(completion.text) }
                }
                if let shards = section.shards { json.key("shards"); write(shards, to: &json) }
                if let error = section.error { json.key("error"); write(error, to: &json) }
            }
        }
    }

    /// `SearchResponse.sections`: each section's every field, defaults included.
    static func write(_ sections: [Typeahead_V1_SearchSection], to json: inout JSONWriter) {
        json.array(sections) { json, section in
            json.object { json in
                json.key("collection"); json.string(section.collection)
                json.key("hits"); write(section.hits, to: &json)
                json.key("totalHits"); json.unsigned(UInt64(section.totalHits))
                json.key("facets"); write(section.facets, to: &json)
                json.key("nextPageToken"); json.string(section.nextPageToken)
                if let shards = section.shards { json.key("shards"); write(shards, to: &json) }
                if let error = section.error { json.key("error"); write(error, to: &json) }
            }
        }
    }

    /// A section's `error` (set only when its collection failed as a whole).
    static func write(_ error: Typeahead_V1_SectionError, to json: inout JSONWriter) {
        json.object { json in
            json.key("code"); json.string(error.code)
            json.key("message"); json.string(error.message)
        }
    }

    /// The JSON text of a Describe answer, every field written, ending in a line feed.
    ///
    /// ```json
    /// {"scopes":[{"name":"all","label":"All","prompt":"Departments and products",
    ///   "collections":["products","departments"],"tokens":[]}],
    ///  "collections":[{"name":"products","entries":52,"tokenKinds":["category"]}, …],
    ///  "defaultCollection":"products","defaultPrompt":"Search"}
    /// ```
    public static func describe(_ response: Typeahead_V1_DescribeResponse) -> [UInt8] {
        var json = JSONWriter(reservingCapacity: 512)
        json.object { json in
            json.key("scopes")
            json.array(response.scopes) { json, scope in
                json.object { json in
                    json.key("name"); json.string(scope.name)
                    json.key("label"); json.string(scope.label)
                    json.key("prompt"); json.string(scope.prompt)
                    json.key("collections"); json.array(scope.collections) { json, name in json.string(name) }
                    json.key("tokens"); json.array(scope.tokens) { json, token in write(token, to: &json) }
                }
            }
            json.key("collections")
            json.array(response.collections) { json, collection in
                json.object { json in
                    json.key("name"); json.string(collection.name)
                    json.key("entries"); json.unsigned(collection.entries)
                    json.key("tokenKinds"); json.array(collection.tokenKinds) { json, kind in json.string(kind) }
                }
            }
            json.key("defaultCollection"); json.string(response.defaultCollection)
            json.key("defaultPrompt"); json.string(response.defaultPrompt)
        }
        json.newline()
        return json.bytes
    }
}
