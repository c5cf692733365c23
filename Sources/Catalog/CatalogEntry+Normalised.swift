// The catalog parser's normalisations, for entries that reach the index without a catalog line
// (gRPC upserts and generation builds): the parser applies them while it streams a line (and
// notes each blank, for the build's warnings), this applies them to a whole entry, so that an
// upsert of the same values as a catalog line indexes the same entry.

extension CatalogEntry {
    /// The entry as the catalog parser would have read it: blank optional fields are absent (a
    /// `""` category or alias is left out, a `""` description is none) and duplicate categories
    /// are removed, byte-exactly, the first one kept.
    ///
    /// Required fields (id, title) are left alone: blank ones stay blank and are refused by
    /// validation, as in a catalog.
    ///
    /// Complexity: O(total length of categories and aliases); an entry with nothing to change
    /// is returned without copying its arrays.
    ///
    /// Example:
    /// ```swift
    /// CatalogEntry(id: "1", title: "Hose", categories: ["", "Garden", "Garden"], aliases: [""], description: "")
    ///     .normalised()
    /// // CatalogEntry(id: "1", title: "Hose", categories: ["Garden"])
    /// ```
    public func normalised() -> CatalogEntry {
        var entry = self
        if description?.isEmpty == true { entry.description = nil }
        if aliases.contains(where: \.isEmpty) { entry.aliases.removeAll(where: \.isEmpty) }
        if categories.contains(where: \.isEmpty) || !hasDistinctCategories {
            var kept: [String] = []
            // At most 32 categories by the limits: a linear scan beats hashing. Byte-exact, as
            // the parser compares them ("Café" and "Cafe\u{301}" are two categories).
            for category in categories where !category.isEmpty && !kept.contains(where: { $0.utf8.elementsEqual(category.utf8) }) {
                kept.append(category)
            }
            entry.categories = kept
        }
        return entry
    }

    private var hasDistinctCategories: Bool {
        for (index, category) in categories.enumerated()
        where categories[..<index].contains(where: { $0.utf8.elementsEqual(category.utf8) }) {
            return false
        }
        return true
    }
}
