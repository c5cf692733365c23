import Index
import Wire

/// A shard's completion as it arrived (``RankedCompletionView``): merged by its word's bytes and
/// its best entry's key, its spelling written from the shard's bytes.
///
/// Merged only once ``checkMergeable(_:)`` passed: every completion has its best key.
extension RankedCompletionView: MergeableCompletion {
    public var mergeTypos: Int { Int(typos) }
    public var mergeBest: WireRank { WireRank(best.unsafelyUnwrapped) }
    public var mergeTerm: UTF8Bytes { UTF8Bytes(term) }

    /// Throws unless every completion has its best key (else the call fails, as it did when they
    /// were decoded).
    static func checkMergeable(_ completions: [RankedCompletionView]) throws(IndexError) {
        for (index, completion) in completions.enumerated() where completion.best == nil {
            throw IndexError(.invalidArgument, "completions[\(index)].best: is missing")
        }
    }
}
