import Index
import Wire
import WireConversions

/// A shard's category chip as it arrived (``RankedCategoryView``): its name left in the shard's
/// bytes, its count and typos added up with the other shards' in place. (A count saturates at
/// UInt32's maximum, which the answer's `uint32 count` could not exceed anyway.)
///
/// Merged only once ``checkMergeable(_:)`` passed.
extension RankedCategoryView: MergeableCategory {
    public var mergeName: ChipName<UTF8Bytes> { ChipName(kind: UTF8Bytes(kind), name: UTF8Bytes(name)) }
    public var mergeCount: Int {
        get { Int(count) }
        set { count = UInt32(clamping: newValue) }
    }
    public var mergeTypos: Int {
        get { Int(typos) }
        set { typos = UInt32(clamping: newValue) }
    }

    /// Throws unless every chip is one, as its conversion to an Index value checks: a
    /// suggestion with a name, and a token (shards send one for attribute chips only) whose value
    /// is the chip's name, of a valid kind.
    static func checkMergeable(_ categories: [RankedCategoryView]) throws(IndexError) {
        for (index, view) in categories.enumerated() {
            guard view.hasSuggestion else { throw IndexError(.invalidArgument, "categories[\(index)].suggestion: is missing") }
            guard !view.name.isEmpty else { throw IndexError(.invalidArgument, "categories[\(index)].suggestion.name: is empty") }
            if view.token != nil {
                // The rare path: the conversion that defines the check, on the decoded message.
                _ = try CategorySuggestion(view.message, field: "categories[\(index)]")
            }
        }
    }
}
