internal import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An error reported by LMDB or by the operating system while the `Storage` module talked to LMDB.
///
/// Every C status code in this module goes through one function, ``check(_:_:)``, so every failure
/// looks the same: the LMDB (negative, `MDB_*`) or `errno` (positive) ``code`` plus the name of the
/// ``operation`` that returned it. ``description`` renders both with `mdb_strerror`, for example
///
///     mdb_put: MDB_MAP_FULL: Environment mapsize limit reached (code -30792)
///
/// Callers that need to react to a particular condition use the `is…` properties instead of comparing
/// ``code`` against LMDB constants, so that they never have to import `CLMDB`.
///
/// "Not found" is usually *not* an error in this API: lookups return `nil`. It only surfaces as an
/// error where absence is a failure, such as ``Environment/database(named:flags:create:)`` without
/// `create`.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The LMDB return code (negative, between `MDB_KEYEXIST` and `MDB_LAST_ERRCODE`) or an `errno`
    /// value (positive).
    public let code: Int32

    /// The C function (`"mdb_put"`) or, for errors this module raises itself, the operation and the
    /// reason (`"Environment.write: environment was opened readOnly"`).
    public let operation: String

    /// Creates an error value. Mostly useful for tests that compare errors.
    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// `"<operation>: <mdb_strerror(code)> (code <code>)"`.
    public var description: String {
        // mdb_strerror returns a pointer to a static string for LMDB codes and to strerror()'s
        // buffer for errno values; either way we copy it out immediately.
        let message = mdb_strerror(code).map { String(cString: $0) } ?? "unknown error"
        return "\(operation): \(message) (code \(code))"
    }

    /// `MDB_MAP_FULL`: the environment's ``Environment/Options/mapSize`` is exhausted. The write
    /// transaction that hit it has been rolled back; reopen the environment with a larger map.
    public var isMapFull: Bool { code == MDB_MAP_FULL }

    /// `MDB_KEYEXIST`: a ``PutFlags/noOverwrite`` or ``PutFlags/noDuplicateData`` put found the
    /// key (or pair) already present, or an ``PutFlags/append`` put was given a key out of order.
    public var isKeyExists: Bool { code == MDB_KEYEXIST }

    /// `MDB_NOTFOUND`: a named database does not exist (lookups report absence as `nil` instead).
    public var isNotFound: Bool { code == MDB_NOTFOUND }

    /// `MDB_READERS_FULL`: all ``Environment/Options/maxReaders`` reader slots are taken.
    public var isReadersFull: Bool { code == MDB_READERS_FULL }

    /// `MDB_BAD_VALSIZE`: an empty key, a key longer than ``Environment/maxKeySize``, or a value of
    /// the wrong size for a ``DatabaseFlags/duplicateFixed`` database.
    public var isBadValueSize: Bool { code == MDB_BAD_VALSIZE }

    /// `MDB_INCOMPATIBLE`: the database exists with different ``DatabaseFlags``.
    public var isIncompatible: Bool { code == MDB_INCOMPATIBLE }

    /// `ENOSPC`: the file system holding the environment is full (or the writer's quota is used
    /// up). The write that hit it was rolled back and the committed data is unchanged; the
    /// ``operation`` names the directory and its free space.
    public var isNoSpace: Bool { code == ENOSPC || code == EDQUOT }

    /// `EACCES`: a write was attempted on an environment opened ``Environment/Options/readOnly``.
    public var isReadOnly: Bool { code == EACCES }
}

/// Turns a C status code into a thrown ``StorageError``. The single place where this module
/// interprets a return code; everything that calls LMDB funnels through it.
///
/// We throw instead of trapping even for codes that usually mean misuse (`EINVAL`, `MDB_BAD_DBI`):
/// they are reachable from caller data (a ``Database`` used before the transaction that created it
/// committed, for instance), and a server must be able to fail one request without dying.
@inline(__always)
func check(_ rc: Int32, _ operation: String) throws(StorageError) {
    if rc != MDB_SUCCESS {
        throw StorageError(code: rc, operation: operation)
    }
}
