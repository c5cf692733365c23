import Storage
import Synchronization

/// The delta's name words as a ``PackedTrie``, built from `delta_terms` once per read snapshot and
/// kept for the queries that follow, so that a typo-tolerant walk of the delta is the same walk in
/// memory as the base's (``PackedTrie/regions(_:query:budget:prefixMode:previous:terms:)``).
///
/// Why: walking `delta_terms` itself with a cursor costs a B+tree step per key it meets, and the
/// walk meets every key near the typed word, description words included: with a fifth of Debian
/// re-weighted, "limb" spent 110 µs a keystroke in that walk, four times the whole answer on a
/// fresh shard. Building the trie reads every delta key once (a few milliseconds for 13,000
/// documents), after each write, on the first query that needs it.
///
/// Exact: the trie is built from the snapshot it is keyed by (``ReadTransaction/snapshotID``, which
/// every write advances), so a query reads the words of exactly the delta it sees. Only name words
/// are in it (a key with at least one posting of field 0): typo'd suggest matches are name words.
///
/// Thread-safety: one trie at a time behind a mutex, held only to swap or copy a reference; two
/// queries that miss at once both build it, and the later one is kept.
final class DeltaTrie: Sendable {
    private let latest = Mutex<(snapshot: Int, trie: [UInt8])?>(nil)

    /// The trie of the delta's name words as `txn` sees them.
    func trie(of schema: Schema, in txn: borrowing ReadTransaction) throws -> [UInt8] {
        let snapshot = txn.snapshotID
        if let cached = latest.withLock({ $0?.snapshot == snapshot ? $0?.trie : nil }) { return cached }
        var words: [[UInt8]] = []
        try txn.withCursor(schema.deltaTerms) { cursor in
            var entry = try cursor.seek(atLeast: [TermWalk.firstWordByte])
            while let (key, _) = entry {
                // A key's duplicates (document number, field) in byte order: any of field 0 makes it a name word.
                var duplicate = entry?.value
                while let value = duplicate {
                    if value.count == 5 && value[4] == 0 {
                        words.append(Array(key))
                        break
                    }
                    duplicate = try cursor.nextDuplicate()?.value
                }
                entry = try cursor.nextKey()
            }
        }
        let trie = PackedTrie.build(words)
        latest.withLock { $0 = (snapshot, trie) }
        return trie
    }
}
