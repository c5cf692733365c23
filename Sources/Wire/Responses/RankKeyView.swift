/// A `typeahead.v1.RankKey` read in place: its numbers decoded, its strings left as checked UTF-8
/// in the received bytes (a ``MessageBuffer``, whose lifetime rule applies). What a coordinator
/// compares its shards' hits and completions by, without a `String` per key; the order itself is
/// the Index's (`RankOrdered`), applied by the coordinator.
public struct RankKeyView: ProtoDecodable, @unchecked Sendable {
    public var typos: UInt32 = 0
    public var field: UInt32 = 0
    public var exact = false
    public var startsWith = false
    public var weight: UInt64 = 0
    public var sortTitle = UnsafeRawBufferPointer(start: nil, count: 0)
    public var id = UnsafeRawBufferPointer(start: nil, count: 0)

    /// Reads the key from `reader`, positioned on its content, refusing what the generated
    /// decoder refuses.
    public init(decoding reader: inout ProtoReader) throws(ProtoError) {
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: typos = try reader.read(ProtoUInt32.self, tag, "typos")
            case 2: field = try reader.read(ProtoUInt32.self, tag, "field")
            case 3: startsWith = try reader.read(ProtoBool.self, tag, "starts_with")
            case 4: weight = try reader.read(ProtoUInt64.self, tag, "weight")
            case 5: sortTitle = try reader.readUTF8Bytes(tag, "sort_title")
            case 6: id = try reader.readUTF8Bytes(tag, "id")
            case 7: exact = try reader.read(ProtoBool.self, tag, "exact")
            default: try reader.skip(tag)
            }
        }
    }

    /// The key as its message (for page tokens, tests and error paths: it makes the strings).
    public var message: Typeahead_V1_RankKey {
        Typeahead_V1_RankKey(typos: typos, field: field, exact: exact, startsWith: startsWith, weight: weight,
                             sortTitle: String(decoding: sortTitle, as: UTF8.self), id: String(decoding: id, as: UTF8.self))
    }
}
