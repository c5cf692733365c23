#if canImport(Glibc)
import Glibc
#endif
import Storage

/// Terms (analysed words, as UTF-8 bytes) mapped to values, for one query: the completion
/// candidates a plan notes and the words it still waits for.
///
/// A `[[UInt8]: Value]` costs one allocation per term (its key array) and a SipHash over it per
/// look-up; a plan notes a term for every word of every document it reads, so that was most of a
/// cheap query's completion work. Here every term's bytes are copied once into one arena, the
/// entries live in one array in the order they were first noted, and a look-up hashes the bytes
/// once (FNV-1a) into an open-addressing index of entry numbers. Up to ``linearLimit`` entries the
/// index is not even built: comparing a handful of short terms beats hashing.
///
/// Removal leaves the entry in place, marked removed (a removed term noted again is live again),
/// so entry numbers stay valid while iterating.
///
/// Complexity: `note`, `index(of:)` and `remove` are O(term length) expected; the table grows
/// by doubling. Not `Sendable` in spirit: one per query, on one thread.
struct TermTable<Value> {
    struct Entry {
        fileprivate var start: Int32
        fileprivate var length: Int32
        fileprivate var hash: UInt32
        fileprivate(set) var isRemoved = false
        var value: Value
    }

    private var arena: [UInt8] = []
    private(set) var entries: [Entry] = []
    /// Entry numbers + 1 by hash (0: empty slot); empty until there are more than `linearLimit`.
    private var slots: [Int32] = []
    /// Live (not removed) entries.
    private(set) var count = 0
    var isEmpty: Bool { count == 0 }

    static var linearLimit: Int { 8 }

    init() {}

    /// Room for `terms` terms of `bytes` bytes in all before the table grows: a plan that knows
    /// roughly how many it notes saves the doubling steps' allocations.
    mutating func reserveCapacity(terms: Int, bytes: Int) {
        entries.reserveCapacity(terms)
        arena.reserveCapacity(bytes)
    }

    /// The term of entry `index`, valid until the table is next changed.
    func withTerm<R>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let entry = entries[index]
        return try arena.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[Int(entry.start)..<Int(entry.start + entry.length)])) }
    }

    /// The term of entry `index` as an array (for the few terms an answer returns).
    func term(at index: Int) -> [UInt8] {
        let entry = entries[index]
        return Array(arena[Int(entry.start)..<Int(entry.start + entry.length)])
    }

    /// The bytes order of the terms of entries `a` and `b` (a tiebreak of completions, and the
    /// order a build writes its terms in): one `memcmp` in the arena, where comparing two
    /// `[UInt8]` retained both, and an element-wise slice comparison was slower still.
    func termPrecedes(_ a: Int, _ b: Int) -> Bool {
        let x = entries[a], y = entries[b]
        return arena.withUnsafeBufferPointer { arena in
            compareBytes(UnsafeBufferPointer(rebasing: arena[Int(x.start)..<Int(x.start + x.length)]),
                         UnsafeBufferPointer(rebasing: arena[Int(y.start)..<Int(y.start + y.length)])) < 0
        }
    }

    /// The entry number of `term` if it is live.
    func index(of term: UnsafeRawBufferPointer) -> Int? {
        guard let found = find(term, hash: Self.hash(term)), !entries[found].isRemoved else { return nil }
        return found
    }

    func index(of term: [UInt8]) -> Int? { term.withUnsafeBytes { index(of: $0) } }

    /// Calls `update` with the live value of `term` (nil when absent) and stores what it leaves
    /// there (nil removes). Returns the entry number, or nil when the term is not (or no longer) in.
    @discardableResult
    mutating func update(_ term: UnsafeRawBufferPointer, _ update: (inout Value?) -> Void) -> Int? {
        let hash = Self.hash(term)
        if let found = find(term, hash: hash) {
            var value: Value? = entries[found].isRemoved ? nil : entries[found].value
            let wasLive = value != nil
            update(&value)
            switch (wasLive, value) {
            case (_, let new?):
                entries[found].value = new
                entries[found].isRemoved = false
                if !wasLive { count += 1 }
                return found
            case (true, nil):
                entries[found].isRemoved = true
                count -= 1
                return nil
            case (false, nil):
                return nil
            }
        }
        var value: Value?
        update(&value)
        guard let value else { return nil }
        precondition(term.count <= Int(Int32.max) && arena.count <= Int(Int32.max) - term.count, "term table arena over 2 GiB")
        entries.append(Entry(start: Int32(arena.count), length: Int32(term.count), hash: hash, value: value))
        arena.append(contentsOf: term)
        count += 1
        if entries.count > Self.linearLimit {
            if slots.count < entries.count * 2 { rebuildSlots() } else { insertSlot(entries.count - 1) }
        }
        return entries.count - 1
    }

    @discardableResult
    mutating func update(_ term: [UInt8], _ body: (inout Value?) -> Void) -> Int? { term.withUnsafeBytes { update($0, body) } }

    /// Removes `term`; its value if it was live.
    mutating func remove(_ term: UnsafeRawBufferPointer) -> Value? {
        var removed: Value?
        update(term) { value in
            removed = value
            value = nil
        }
        return removed
    }

    /// Live entries' numbers, in the order their terms were first noted.
    var liveIndices: some Sequence<Int> { entries.indices.lazy.filter { !entries[$0].isRemoved } }

    // MARK: Hashing

    /// FNV-1a, 32 bits: terms are short, and the table only needs to spread them.
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash
    }

    private func find(_ term: UnsafeRawBufferPointer, hash: UInt32) -> Int? {
        if slots.isEmpty {
            return entries.indices.first { entries[$0].hash == hash && matches($0, term) }
        }
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while true {
            let stored = Int(slots[slot])
            if stored == 0 { return nil }
            if entries[stored - 1].hash == hash && matches(stored - 1, term) { return stored - 1 }
            slot = (slot + 1) & mask
        }
    }

    private func matches(_ index: Int, _ term: UnsafeRawBufferPointer) -> Bool {
        let entry = entries[index]
        guard Int(entry.length) == term.count else { return false }
        return arena.withUnsafeBytes { arena in
            term.isEmpty || memcmp(arena.baseAddress! + Int(entry.start), term.baseAddress!, term.count) == 0
        }
    }

    /// Sizes the index to a power of two at least four times the entries (load ≤ ½ until the next
    /// doubling) and enters every entry.
    private mutating func rebuildSlots() {
        var size = 16
        while size < entries.count * 4 { size *= 2 }
        slots = Array(repeating: 0, count: size)
        for index in entries.indices { insertSlot(index) }
    }

    private mutating func insertSlot(_ index: Int) {
        let mask = slots.count - 1
        var slot = Int(entries[index].hash) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(index + 1)
    }
}
