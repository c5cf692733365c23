import Catalog

/// Checks entries that reach the index without passing through a catalog file (API callers), with
/// the catalog's own limits, so that nothing the parser would refuse can be indexed another way.
enum EntryValidation {
    static func check(_ entries: some Collection<CatalogEntry>, firstPosition: Int = 0, limits: CatalogLimits = .init()) throws(IndexError) {
        for (offset, index) in entries.indices.enumerated() {
            // Read in place: a `for entry in entries` copied each (a dozen retains and releases).
            let entry = entries[index]
            func fail(_ reason: String) -> IndexError {
                .invalidArgument("entry \(firstPosition + offset + 1) (id \"\(entry.id.prefix(64))\"): \(reason)")
            }
            guard !entry.id.isEmpty, entry.id.utf8.count <= limits.maximumIdBytes else {
                throw fail("id must be 1 to \(limits.maximumIdBytes) bytes")
            }
            guard !isBlank(entry.title), entry.title.utf8.count <= limits.maximumTitleBytes else {
                throw fail("title must be non-blank and at most \(limits.maximumTitleBytes) bytes")
            }
            guard entry.weight <= limits.maximumWeight else {
                throw fail("weight \(entry.weight) is above the maximum \(limits.maximumWeight)")
            }
            guard entry.categories.count <= limits.maximumCategories,
                  entry.categories.allSatisfy({ !$0.isEmpty && $0.utf8.count <= limits.maximumCategoryBytes }) else {
                throw fail("at most \(limits.maximumCategories) categories of 1 to \(limits.maximumCategoryBytes) bytes")
            }
            guard entry.aliases.count <= limits.maximumAliases,
                  entry.aliases.allSatisfy({ $0.utf8.count <= limits.maximumAliasBytes }) else {
                throw fail("at most \(limits.maximumAliases) aliases of at most \(limits.maximumAliasBytes) bytes")
            }
            guard (entry.description?.utf8.count ?? 0) <= limits.maximumDescriptionBytes else {
                throw fail("description is over \(limits.maximumDescriptionBytes) bytes")
            }
            guard entry.attributes.count <= limits.maximumAttributes,
                  entry.attributes.allSatisfy({ $0.key.utf8.count <= limits.maximumAttributeKeyBytes && $0.value.utf8.count <= limits.maximumAttributeValueBytes }) else {
                throw fail("at most \(limits.maximumAttributes) attributes within the size limits")
            }
        }
    }

    /// Whether every character of `text` is whitespace (an empty text is blank). A character is
    /// whitespace when its first scalar is, so a first byte that is ASCII and not whitespace (most
    /// titles) decides without splitting the text into characters.
    static func isBlank(_ text: String) -> Bool {
        if let first = text.utf8.first, first < 0x80 {
            let asciiWhitespace = first == 0x20 || (0x09...0x0D).contains(first)
            if !asciiWhitespace { return false }
        }
        return text.allSatisfy(\.isWhitespace)
    }

    /// Ids given to delete obey the same rule as an entry's id: 1 to `maximumIdBytes` bytes. An
    /// empty or over-long one can name no entry, so it is a caller's mistake, not a "missing" id.
    static func checkIDs(_ ids: [String], limits: CatalogLimits = .init()) throws(IndexError) {
        for (position, id) in ids.enumerated() where id.isEmpty || id.utf8.count > limits.maximumIdBytes {
            throw .invalidArgument("id \(position + 1) (\"\(id.prefix(64))\") must be 1 to \(limits.maximumIdBytes) bytes, got \(id.utf8.count)")
        }
    }
}
