internal import CLMDB

/// A handle to one named key-value database (an LMDB "DBI") inside an ``Environment``.
///
/// Obtained from ``Environment/database(named:flags:create:)``, which caches handles by name, so a
/// `Database` is a cheap value (two integers) that may be stored, hashed and sent freely. It stays
/// valid for the life of its environment. Using it with a transaction of a *different* environment is
/// a programming error and traps.
///
/// A handle opened (created) while some transaction was already running is not usable inside that
/// older transaction: LMDB fixes the set of databases a transaction sees when it begins. Open every
/// database up front, before the transactions that use it.
public struct Database: Sendable, Hashable {
    /// The `MDB_dbi`.
    let dbi: MDB_dbi
    /// ``Environment`` serial number, to catch handles used with the wrong environment.
    let environmentID: UInt64

    init(dbi: MDB_dbi, environmentID: UInt64) {
        self.dbi = dbi
        self.environmentID = environmentID
    }

    /// Size and shape of one database as of a transaction's snapshot (`MDB_stat`).
    public struct Statistics: Sendable, Equatable {
        /// Number of key/value pairs; in a ``DatabaseFlags/duplicateSort`` database every duplicate
        /// counts.
        public var entries: Int
        /// Height of the B+tree.
        public var depth: Int
        public var branchPages: Int
        public var leafPages: Int
        public var overflowPages: Int
        /// Page size in bytes (the OS page size, usually 4096).
        public var pageSize: Int
    }
}

/// Persistent properties of a database, fixed when it is created (`mdb_dbi_open` flags).
public struct DatabaseFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `MDB_DUPSORT`: a key may hold many values, kept sorted (bytewise) and unique per key.
    /// Each value is limited to ``Environment/maxKeySize`` bytes, because duplicates are stored as keys
    /// of a nested tree.
    public static let duplicateSort = DatabaseFlags(rawValue: UInt32(MDB_DUPSORT))

    /// `MDB_DUPFIXED`: with ``duplicateSort`` only; all values of the database have one size, which
    /// lets LMDB pack them densely. Requesting it without ``duplicateSort`` is rejected (`EINVAL`).
    ///
    /// Caller's contract: LMDB 0.9.24 does **not** verify value sizes here, and a value of another size
    /// corrupts that key's duplicates. Debug builds check it on every put (``StorageError/isBadValueSize``);
    /// release builds trust you. Write such databases through one helper that always stores one type.
    public static let duplicateFixed = DatabaseFlags(rawValue: UInt32(MDB_DUPFIXED))

    /// `MDB_INTEGERKEY`: every key is one native-endian unsigned integer of one size (4 or 8 bytes),
    /// compared as a number. Write and look up its keys as ``IntegerKey`` only.
    ///
    /// Why: a lookup compares the key with some twenty stored keys on its way down the tree, and
    /// LMDB's byte-wise comparison is a `memcmp` call each time, where this is one integer
    /// comparison (a point read by document number is the commonest read there is).
    /// Caller's contract: LMDB does not check key sizes here either; keys of mixed sizes corrupt
    /// the order.
    public static let integerKey = DatabaseFlags(rawValue: UInt32(MDB_INTEGERKEY))
}

/// Options for ``WriteTransaction/put(_:_:_:flags:)``.
public struct PutFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `MDB_NOOVERWRITE`: fail with ``StorageError/isKeyExists`` if the key is already present
    /// (in a ``DatabaseFlags/duplicateSort`` database: present with any value).
    public static let noOverwrite = PutFlags(rawValue: UInt32(MDB_NOOVERWRITE))

    /// `MDB_NODUPDATA`: ``DatabaseFlags/duplicateSort`` only; fail with ``StorageError/isKeyExists``
    /// if this exact key/value pair is already present.
    public static let noDuplicateData = PutFlags(rawValue: UInt32(MDB_NODUPDATA))

    /// `MDB_APPEND`: the key is known to sort after every existing key; LMDB skips the search and
    /// fills pages completely, which makes bulk loads of sorted data fast and compact. A key that is
    /// out of order fails with ``StorageError/isKeyExists``.
    public static let append = PutFlags(rawValue: UInt32(MDB_APPEND))

    /// `MDB_APPENDDUP`: like ``append`` for the values of one key in a
    /// ``DatabaseFlags/duplicateSort`` database.
    public static let appendDuplicate = PutFlags(rawValue: UInt32(MDB_APPENDDUP))
}
