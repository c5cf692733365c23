/// A `typeahead.v1.RankedEntry` read in place: its hit left in the received bytes
/// (``EncodedEntryHit``), its rank key read as a ``RankKeyView``. Valid while the
/// ``MessageBuffer`` it was read from lives.
public struct RankedEntryView: ProtoDecodable, @unchecked Sendable {
    public var hit: EncodedEntryHit?
    public var rank: RankKeyView?

    public init(decoding reader: inout ProtoReader) throws(ProtoError) {
        while let field = try reader.nextTag() {
            switch field.number {
            case 1: hit = try reader.readMessage(field, "hit", as: EncodedEntryHit.self)
            case 2: rank = try reader.readMessage(field, "rank", as: RankKeyView.self)
            default: try reader.skip(field)
            }
        }
    }
}
