/// Which shard holds a catalog entry: a pure function of the entry's id and the number of shards,
/// used by everything that places or finds entries (`typeahead local`, `admin reindex`, `admin
/// upsert`/`delete`), so indexing and routing can never disagree.
///
/// The rule, so that an operator can predict it (`typeahead shard-of --shards N ID` prints it):
///
/// 1. `h = FNV-1a-64(the id's UTF-8 bytes)` (offset basis 0xcbf29ce484222325, prime 0x100000001b3);
/// 2. `h = SplitMix64-finalize(h)` (`h ^= h >> 30; h *= 0xbf58476d1ce4e5b9; h ^= h >> 27;
///    h *= 0x94d049bb133111eb; h ^= h >> 31`), because FNV's high bits barely change between ids
///    that differ in their last character;
/// 3. `shard = JumpConsistentHash(h, N)` (Lamping & Veach, 2014).
///
/// Jump hashing spreads ids evenly and, when a cluster grows from N to N+1 shards, moves only the
/// 1/(N+1) of the entries that the new shard takes — no entry moves between two old shards. Ids
/// are compared as bytes, like everywhere else: "Café" in NFC and NFD are different ids and may
/// live on different shards.
///
/// ```swift
/// ShardAssignment.shard(of: "sku-00758", shardCount: 4)   // always the same shard, on every machine
/// ```
///
/// Complexity: O(id length + log N). No allocation.
public enum ShardAssignment {
    /// The shard (0 ..< `shardCount`) that holds the entry with this id. `shardCount` must be ≥ 1.
    public static func shard(of id: String, shardCount: Int) -> Int {
        precondition(shardCount >= 1, "a cluster has at least one shard")
        return jump(mixed(fnv1a(id.utf8)), buckets: shardCount)
    }

    /// Steps 1 and 2 of the rule: the 64-bit key an id is placed by.
    public static func key(of id: String) -> UInt64 {
        mixed(fnv1a(id.utf8))
    }

    static func fnv1a<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    static func mixed(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Lamping & Veach's jump consistent hash: follows the key's pseudo-random sequence of
    /// "jumps" to larger bucket counts and returns the last bucket below `buckets`.
    static func jump(_ key: UInt64, buckets: Int) -> Int {
        var key = key
        var bucket: Int64 = -1
        var next: Int64 = 0
        while next < Int64(buckets) {
            bucket = next
            key = key &* 2_862_933_555_777_941_757 &+ 1
            next = Int64(Double(bucket + 1) * (Double(Int64(1) << 31) / Double((key >> 33) + 1)))
        }
        return Int(bucket)
    }
}
