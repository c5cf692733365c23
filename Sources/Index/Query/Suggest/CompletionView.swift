import Storage

/// One completion of a ``SuggestAnswer``, its text lent from the memory map: the completed word
/// (`term`, analysed) and how its best entry writes it (`spelling`), both views of that entry's
/// record, and the entry's rank key. Valid, like ``HitView``, only inside the answer's closure.
public struct CompletionView {
    let term: Text
    let spelling: Text
    /// Edits between the partial word and the nearest prefix of the term.
    public let typos: Int
    let best: CandidateKey

    /// The bytes of a completion's text: a view of the best entry's record, or (when the entry
    /// does not write the term, which a consistent index never has) the term itself, copied.
    enum Text {
        case stored(Bytes)
        case owned([UInt8])

        func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            switch self {
            case .stored(let bytes): return try bytes.withUnsafeBytes(body)
            case .owned(let bytes): return try bytes.withUnsafeBytes(body)
            }
        }

        var string: String {
            withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        }
    }

    public func withTerm<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try term.withUnsafeBytes(body) }
    public func withSpelling<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try spelling.withUnsafeBytes(body) }

    /// The best entry's rank key, lent as ``HitView/withRank(_:)`` lends a hit's.
    public func withBest<R>(_ body: (_ typos: Int, _ field: Int, _ exact: Bool, _ startsWith: Bool, _ weight: UInt64,
                                     _ sortTitle: UnsafeRawBufferPointer, _ id: UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try best.withFields(body)
    }

    /// The completion as a value, its `text` the field's text once it is chosen (empty for a
    /// shard's part of an answer).
    func materialized(textBeforePartial: String?) -> QueryCompletion {
        let spelling = self.spelling.string
        return QueryCompletion(text: textBeforePartial.map { $0 + spelling } ?? "", spelling: spelling, term: term.string,
                               typos: typos, best: best.rankKey())
    }
}
