/// A request's token as bytes, for checking documents against it without making strings: a
/// category name, or an attribute key and the value it must have.
struct TokenFilter: Hashable {
    /// The attribute key; nil for a category.
    let attribute: [UInt8]?
    let value: [UInt8]

    init(_ token: SearchToken) {
        attribute = token.kind.isCategory ? nil : Array(token.kind.rawValue.utf8)
        value = Array(token.value.utf8)
    }
}
