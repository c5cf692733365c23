import Index

/// A chip's identity in a merge: its token's kind and its name (the token's value). Shards' chips
/// of one kind and name add up; chips are ordered by ``ChipOrder`` on these.
public struct ChipName<Text: Hashable & Comparable>: Hashable {
    public var kind: Text
    public var name: Text

    public init(kind: Text, name: Text) {
        self.kind = kind
        self.name = name
    }
}
