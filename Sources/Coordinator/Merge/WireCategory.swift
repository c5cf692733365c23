import Index
import Wire
import WireConversions

/// A shard's category chip as it arrived (``RankedCategoryView``): its name left in the shard's
/// bytes, its count and typos to be added up with the other shards'.
public struct WireCategory: MergeableCategory {
    let name: UnsafeRawBufferPointer
    public var count: Int
    public var typos: Int

    public var mergeName: UTF8Bytes { UTF8Bytes(name) }

    /// A shard's chips, checked as their conversion to Index values checks them: a suggestion
    /// with a name, and a token (shards send none) that is the chip's own category.
    static func categories(_ views: [RankedCategoryView]) throws(IndexError) -> [WireCategory] {
        var categories: [WireCategory] = []
        categories.reserveCapacity(views.count)
        for (index, view) in views.enumerated() {
            guard view.hasSuggestion else { throw IndexError(.invalidArgument, "categories[\(index)].suggestion: is missing") }
            guard !view.name.isEmpty else { throw IndexError(.invalidArgument, "categories[\(index)].suggestion.name: is empty") }
            if view.token != nil {
                // The rare path: the conversion that defines the check, on the decoded message.
                _ = try CategorySuggestion(view.message, field: "categories[\(index)]")
            }
            categories.append(WireCategory(name: view.name, count: Int(view.count), typos: Int(view.typos)))
        }
        return categories
    }
}
