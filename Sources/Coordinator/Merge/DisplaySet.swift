/// The displays (title and categories, as bytes) of the entries a merge has listed, to drop an
/// entry displayed exactly like one before it.
///
/// Each display is written once into one shared byte buffer, every part length-prefixed (so no
/// separator can be forged: "a" + "bc" and "ab" + "c" differ), with an FNV-1a hash of it; a new
/// one is compared with the listed ones by hash, and a hash match is confirmed byte for byte. Two
/// allocations per merge whatever the number of entries, where a `Set` of display strings cost a
/// `String` per hit. A merge lists at most `limits.entries` (≤ 100) displays, so the scan of the
/// hashes is cheaper than a hash table's set-up.
struct DisplaySet {
    private var bytes: [UInt8] = []
    private var listed: [(hash: UInt64, range: Range<Int>)] = []

    /// Room for `count` displays (of a typical size).
    init(capacity count: Int) {
        bytes.reserveCapacity(count * 64)
        listed.reserveCapacity(count)
    }

    /// Lists `hit`'s display; false (and nothing listed) when an equal one is listed already.
    mutating func insert<Hit: MergeableHit>(_ hit: Hit) -> Bool {
        let start = bytes.count
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        hit.forEachDisplayPart { part in
            withUnsafeBytes(of: UInt32(part.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: part)
        }
        let range = start..<bytes.count
        for byte in bytes[range] { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        if listed.contains(where: { $0.hash == hash && bytes[$0.range].elementsEqual(bytes[range]) }) {
            bytes.removeSubrange(range)
            return false
        }
        listed.append((hash, range))
        return true
    }
}
