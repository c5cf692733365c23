extension Typeahead_V1_EntryHit {
    /// The message holding `hit`'s fields: for a response built as a message (a scoped answer's
    /// sections) from hits that are views of other bytes. Equal fields, so both encoders write
    /// it exactly as they write `hit` itself.
    ///
    /// ```swift
    /// let message = try Typeahead_V1_EntryHit(fields: presentedHit)
    /// ```
    public init<Hit: EntryHitFields>(fields hit: Hit) throws(Hit.Failure) {
        self.init()
        func text(_ bytes: UnsafeRawBufferPointer) -> String { String(decoding: bytes, as: UTF8.self) }
        try hit.withID { id = text($0) }
        try hit.withTitle { title = text($0) }
        try hit.forEachCategory { categories.append(text($0)) }
        weight = hit.weight
        try hit.forEachAttribute { key, value in attributes[text(key)] = text(value) }
        try hit.withCompletion { completion = text($0) }
        try hit.forEachHighlight { start, end in highlights.append(Typeahead_V1_Highlight(start: start, end: end)) }
    }
}
