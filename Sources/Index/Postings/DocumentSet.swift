/// A set of document numbers for one query: open addressing with linear probing in one array,
/// a multiplicative (Fibonacci) hash, grown to twice its size when half full.
///
/// Why: the plans that read documents from several sources mark the ones they have read ("libt"
/// within one edit meets a document in several regions and at several levels), and
/// `Set<UInt32>` hashes each number with SipHash and grows by rehashing through it: inserting
/// was a seventh of a typo'd partial word on Debian ("dicti"). Here an insert is a multiply, a
/// shift and, mostly, one probe.
///
/// ```swift
/// var read = DocumentSet()
/// read.insert(7)      // true: new
/// read.insert(7)      // false: already there
/// read.contains(8)    // false
/// ```
struct DocumentSet {
    /// A number plus one in each used slot; 0: empty.
    private var slots: [UInt32]
    /// log2 of the slot count.
    private var bits: Int
    /// Whether `UInt32.max`, which has no slot value of its own, is in the set.
    private var hasMaximum = false
    private(set) var count = 0

    /// An empty set with room for `capacity` numbers before it grows.
    init(capacity: Int = 32) {
        var bits = 4
        while 1 << (bits - 1) < capacity { bits += 1 }
        self.bits = bits
        slots = [UInt32](repeating: 0, count: 1 << bits)
    }

    /// Adds `doc`; whether it was new.
    @discardableResult
    mutating func insert(_ doc: UInt32) -> Bool {
        guard doc != .max else {
            defer { hasMaximum = true }
            if hasMaximum { return false }
            count += 1
            return true
        }
        if 2 * (count + 1) > slots.count { grow() }
        let (index, found) = probe(doc)
        guard !found else { return false }
        slots[index] = doc &+ 1
        count += 1
        return true
    }

    func contains(_ doc: UInt32) -> Bool {
        doc == .max ? hasMaximum : probe(doc).found
    }

    /// Where `doc` (not `UInt32.max`) is, or the empty slot where it would go: linear probing
    /// from its hash. The table is never full (it grows at half), so an empty slot ends the probe.
    @inline(__always)
    private func probe(_ doc: UInt32) -> (index: Int, found: Bool) {
        let value = doc &+ 1
        let mask = slots.count - 1
        var index = Self.slot(doc, bits)
        while true {
            let current = slots[index]
            if current == value { return (index, true) }
            if current == 0 { return (index, false) }
            index = (index + 1) & mask
        }
    }

    /// The slot a number hashes to: the top `bits` bits of its product with 2³² / φ.
    @inline(__always)
    private static func slot(_ doc: UInt32, _ bits: Int) -> Int {
        Int((doc &* 0x9E37_79B1) >> UInt32(32 - bits))
    }

    private mutating func grow() {
        let old = slots
        bits += 1
        slots = [UInt32](repeating: 0, count: 1 << bits)
        for value in old where value != 0 { slots[probe(value &- 1).index] = value }
    }
}
