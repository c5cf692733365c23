import Caching
import Storage

/// The base name postings of common words, and the documents with a name word under a common
/// prefix, as bitmaps kept per read snapshot (``Generation/termBitmaps``), for the narrowing of a
/// partial word's candidates by its words (``Generation/documents(withNameTerms:among:in:)``,
/// typo'd) or by its prefix (``Generation/documents(withNameTermPrefix:postings:among:in:)``, typo-free:
/// "Camakee sa" set the 23,417 postings under "sa" on every keystroke, three quarters of it).
///
/// Why: a typo'd word after a complete one is narrowed, on every keystroke, by the postings of
/// every word within its budget, and in a catalog's long tail of words a few are very common:
/// "thou stouc", "thou stoucr", … up to "thou stoucriagou" on the synthetic 1M catalog each
/// decoded the 138,720 postings of "stoucriagou" into a bitmap (0.4 ms a keystroke); kept, that
/// word costs an OR of 16,000 words.
///
/// Exact by construction: the key holds the read snapshot's id, as ``FilterCache``'s does, and a
/// bitmap holds exactly the word's base name postings (the caller ORs it where it would have set
/// them one by one, and adds the delta's), or exactly the base and delta documents under the
/// prefix (what the caller would have set).
///
/// Bounded: only words and prefixes whose bitmap is at most ``bytesPerPosting`` bytes a posting
/// are kept (a prefix counted by its heavy trie node; a bitmap spans at least the whole base, an
/// eighth of a byte a document), and at most 16 stripes of 2 MiB
/// or of two bitmaps, whichever is more (32 MiB up to 8 million documents: 256 bitmaps of a
/// million; at 10 million, 40 MB: 32 bitmaps), first in, first out (``StripedCache``).
enum TermBitmaps {
    struct Key: Hashable, Sendable {
        var snapshot: Int
        var term: [UInt8]
        /// The documents with a name word starting with `term` (base and delta), not its own
        /// base postings.
        var isPrefix: Bool

        /// The key of the documents under `prefix`, as `txn` sees them.
        static func prefix(_ prefix: [UInt8], in txn: borrowing ReadTransaction) -> Key {
            Key(snapshot: txn.snapshotID, term: prefix, isPrefix: true)
        }
    }

    /// A bitmap is kept for a word with at least this many base postings…
    static let minimumPostings = 4096
    /// …whose bitmap costs at most this many bytes a posting.
    static let bytesPerPosting = 8

    static func worthKeeping(postings: Int, base: Int) -> Bool {
        postings >= minimumPostings && postings * bytesPerPosting * 8 >= base
    }

    static func make(documents: Int) -> StripedCache<Key, DocumentBitmap> {
        let bytesPerStripe = max(2 << 20, documents / 4 + 256)
        return StripedCache(stripes: 16, entriesPerStripe: 64, costPerStripe: bytesPerStripe, maximumCost: bytesPerStripe,
                            cost: { 64 + $0.bytes }, epoch: { CacheEpoch(minor: UInt64($0.snapshot)) })
    }
}
