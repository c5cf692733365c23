/// A `typeahead.v1.RankedCompletion` read in place: numbers decoded, strings left as checked
/// UTF-8 in the received bytes (a ``MessageBuffer``, whose lifetime rule applies).
public struct RankedCompletionView: ProtoDecodable, @unchecked Sendable {
    public var text = UnsafeRawBufferPointer(start: nil, count: 0)
    public var term = UnsafeRawBufferPointer(start: nil, count: 0)
    public var typos: UInt32 = 0
    public var best: RankKeyView?
    public var spelling = UnsafeRawBufferPointer(start: nil, count: 0)

    public init(decoding reader: inout ProtoReader) throws(ProtoError) {
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: text = try reader.readUTF8Bytes(tag, "text")
            case 2: term = try reader.readUTF8Bytes(tag, "term")
            case 3: typos = try reader.read(ProtoUInt32.self, tag, "typos")
            case 4: best = try reader.readMessage(tag, "best", as: RankKeyView.self)
            case 5: spelling = try reader.readUTF8Bytes(tag, "spelling")
            default: try reader.skip(tag)
            }
        }
    }

    /// The completion as its message (for tests: it makes the strings).
    public var message: Typeahead_V1_RankedCompletion {
        Typeahead_V1_RankedCompletion(text: String(decoding: text, as: UTF8.self), term: String(decoding: term, as: UTF8.self),
                                      typos: typos, best: best?.message, spelling: String(decoding: spelling, as: UTF8.self))
    }
}
