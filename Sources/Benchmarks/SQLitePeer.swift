import CSQLite
import Catalog

/// SQLite FTS5 over the same catalog: the benchmark's peer.
///
/// The closest semantics FTS5 allows: a table of (title, aliases) with prefix indexes for 1–4
/// characters; a query's complete words must match as tokens and its partial word as a prefix
/// (`"red" "iph"*`), top 10. No typo tolerance (FTS5 has none), so it does less work than Suggest
/// with typos on. The `unicode61 remove_diacritics 2` tokenizer folds case and diacritics like our
/// analyser does. Two orderings:
/// - ``Ordering/byWeight``: `ORDER BY weight DESC`, which makes SQLite collect and sort every match
///   (the way most people would write it);
/// - ``Ordering/rankedRowids``: entries inserted in static rank order (weight descending, ties by
///   title and id, much as the index numbers its documents), so that rowid order is rank order and
///   `ORDER BY rowid LIMIT 10` stops after ten matches: FTS5's fastest exact configuration.
public final class SQLitePeer {
    public enum Ordering: String, Sendable {
        case byWeight = "by weight"
        case rankedRowids = "ranked rowids"
    }

    private var db: OpaquePointer?
    private var statement: OpaquePointer?
    public let ordering: Ordering

    public init(entries: [CatalogEntry], path: String, ordering: Ordering = .byWeight) throws {
        self.ordering = ordering
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw PeerError("cannot open \(path)") }
        try execute("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")
        try execute("CREATE VIRTUAL TABLE entries USING fts5(title, aliases, weight UNINDEXED, prefix='1 2 3 4', tokenize='unicode61 remove_diacritics 2')")
        try execute("BEGIN")
        var insert: OpaquePointer?
        guard sqlite3_prepare_v2(db, "INSERT INTO entries(rowid, title, aliases, weight) VALUES (?, ?, ?, ?)", -1, &insert, nil) == SQLITE_OK else {
            throw PeerError(lastError)
        }
        defer { sqlite3_finalize(insert) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        var ordered = entries
        if ordering == .rankedRowids {
            // Static rank order (titles and ids compared as UTF-8 bytes).
            ordered.sort { a, b in
                if a.weight != b.weight { return a.weight > b.weight }
                if a.title != b.title { return a.title.utf8.lexicographicallyPrecedes(b.title.utf8) }
                return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
            }
        }
        for (index, entry) in ordered.enumerated() {
            sqlite3_bind_int64(insert, 1, Int64(index + 1))
            sqlite3_bind_text(insert, 2, entry.title, -1, transient)
            sqlite3_bind_text(insert, 3, entry.aliases.joined(separator: " "), -1, transient)
            sqlite3_bind_int64(insert, 4, Int64(truncatingIfNeeded: entry.weight))
            guard sqlite3_step(insert) == SQLITE_DONE else { throw PeerError(lastError) }
            sqlite3_reset(insert)
        }
        try execute("COMMIT")
        let order = ordering == .byWeight ? "weight DESC" : "rowid"
        guard sqlite3_prepare_v2(db, "SELECT rowid, title FROM entries WHERE entries MATCH ? ORDER BY \(order) LIMIT 10", -1, &statement, nil) == SQLITE_OK else {
            throw PeerError(lastError)
        }
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close(db)
    }

    /// Runs the FTS5 form of a field text; returns how many rows came back.
    public func suggest(_ text: String) -> Int {
        guard let match = Self.matchExpression(text) else { return 0 }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_text(statement, 1, match, -1, transient)
        var rows = 0
        while sqlite3_step(statement) == SQLITE_ROW { rows += 1 }
        sqlite3_reset(statement)
        return rows
    }

    /// `red iph` → `"red" "iph"*` (the last word is a prefix unless the text ends in a separator).
    static func matchExpression(_ text: String) -> String? {
        let words = text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
        guard !words.isEmpty else { return nil }
        let endsInWord = text.last.map { $0.isLetter || $0.isNumber } ?? false
        return words.enumerated().map { i, word in
            "\"\(word)\"" + (i == words.count - 1 && endsInWord ? "*" : "")
        }.joined(separator: " ")
    }

    private var lastError: String { String(cString: sqlite3_errmsg(db)) }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw PeerError(lastError) }
    }
}

public struct PeerError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
