/// A `typeahead.v1.RankedCategory` read in place, its `suggestion` flattened into it: numbers
/// decoded, strings left as checked UTF-8 in the received bytes (a ``MessageBuffer``, whose
/// lifetime rule applies). The chip's `token`, which shards send for attribute chips only (absent:
/// a category chip), is checked as its message and kept as its bytes, its kind as ``kind``.
public struct RankedCategoryView: ProtoDecodable, @unchecked Sendable {
    /// Whether `suggestion` was present (its fields below are its last occurrence's).
    public var hasSuggestion = false
    /// `suggestion.name`, `.count`, `.token` (its message's bytes, when present: ``tokenMessage``
    /// decodes them) and `.replacement_text`.
    public var name = UnsafeRawBufferPointer(start: nil, count: 0)
    public var count: UInt32 = 0
    public var token: UnsafeRawBufferPointer?
    /// The token's kind: "category" when the chip has no token (a category chip, as shards send
    /// them), else the token's `kind` (checked UTF-8 in the received bytes).
    public var kind = RankedCategoryView.categoryKind
    public var replacementText = UnsafeRawBufferPointer(start: nil, count: 0)
    public var typos: UInt32 = 0

    public init(decoding reader: inout ProtoReader) throws(ProtoError) {
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: try readSuggestion(&reader, tag)
            case 2: typos = try reader.read(ProtoUInt32.self, tag, "typos")
            default: try reader.skip(tag)
            }
        }
    }

    /// The `suggestion` field: a message field seen twice keeps the last one whole, as the
    /// generated decoder does.
    private mutating func readSuggestion(_ reader: inout ProtoReader, _ tag: ProtoTag) throws(ProtoError) {
        var chip = RankedCategoryView(typos: typos)
        try reader.readNested(tag, "suggestion") { fields throws(ProtoError) in
            while let field = try fields.nextTag() {
                switch field.number {
                case 1: chip.name = try fields.readUTF8Bytes(field, "name")
                case 2: chip.count = try fields.read(ProtoUInt32.self, field, "count")
                case 3:
                    try fields.readNested(field, "token") { content throws(ProtoError) in
                        let start = content.position
                        chip.kind = RankedCategoryView.categoryKind
                        while let part = try content.nextTag() {
                            switch part.number {
                            case 1: chip.kind = try content.readUTF8Bytes(part, "kind")
                            case 2: _ = try content.readUTF8Bytes(part, "value")
                            default: try content.skip(part)
                            }
                        }
                        chip.token = content.slice(start..<content.position)
                    }
                case 4: chip.replacementText = try fields.readUTF8Bytes(field, "replacement_text")
                default: try fields.skip(field)
                }
            }
        }
        chip.hasSuggestion = true
        self = chip
    }

    /// "category", the kind of a chip without a token: bytes that live as long as the process.
    nonisolated(unsafe) public static let categoryKind: UnsafeRawBufferPointer = {
        let bytes = Array("category".utf8)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        buffer.copyBytes(from: bytes)
        return UnsafeRawBufferPointer(buffer)
    }()

    private init(typos: UInt32) {
        self.typos = typos
    }

    /// The token, decoded (it was checked when read).
    public var tokenMessage: Typeahead_V1_SearchToken? {
        token.map { try! Typeahead_V1_SearchToken(serializedBuffer: $0) }
    }

    /// The chip as its message (for tests and the rare checks: it makes the strings).
    public var message: Typeahead_V1_RankedCategory {
        let suggestion = Typeahead_V1_CategorySuggestion(name: String(decoding: name, as: UTF8.self), count: count, token: tokenMessage,
                                                         replacementText: String(decoding: replacementText, as: UTF8.self))
        return Typeahead_V1_RankedCategory(suggestion: hasSuggestion ? suggestion : nil, typos: typos)
    }
}
