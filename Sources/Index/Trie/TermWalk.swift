import Storage

/// Enumerates the terms of a sorted term database that a ``BandAutomaton`` accepts.
///
/// A depth-first walk of the path-addressed trie: the cursor visits keys in byte order (preorder of
/// the trie), rows of the automaton are shared along common prefixes, and when a row shows that no
/// extension can match, the cursor jumps past the whole subtree by seeking to `prefix + 0xFF` (UTF-8
/// never contains 0xFF, so every key with that prefix sorts before it) or stepping over it when it
/// is small. Where the automaton's row is final (prefix mode, ``BandAutomaton/isFinal``), the keys
/// below the prefix are taken as a run without automaton steps. Cost: proportional to the trie
/// nodes within the budget's reach plus the keys returned, not to the dictionary size.
enum TermWalk {
    /// Keys below this byte are reserved for pseudo-terms (filters) and are never words.
    static let firstWordByte: UInt8 = 0x02

    static func matches(_ cursor: inout Cursor, automaton: inout BandAutomaton) throws -> TermList {
        var found = TermList()
        try walk(&cursor, automaton: &automaton, subtrees: false) { key, distance, _ in found.append(key, distance: distance) }
        return found
    }

    /// What ``matches(_:automaton:)`` finds, as regions: where the row is final, the prefix's
    /// subtree as one region (its keys skipped, not listed), elsewhere each accepted key alone.
    static func regions(_ cursor: inout Cursor, automaton: inout BandAutomaton) throws -> [TermRegion] {
        var found: [TermRegion] = []
        try walk(&cursor, automaton: &automaton, subtrees: true) { key, distance, isSubtree in
            found.append(TermRegion(prefix: key, distance: distance, isSubtree: isSubtree))
        }
        return found
    }

    /// The walk of both: `body` gets each accepted key with its distance (false), or with
    /// `subtrees`, each final prefix (true) in place of its keys.
    private static func walk(_ cursor: inout Cursor, automaton: inout BandAutomaton, subtrees: Bool,
                             _ body: ([UInt8], Int, Bool) -> Void) throws {
        var path: [UInt8] = []
        var boundaries: [Int] = [0]
        automaton.truncate(to: 0)
        var entry = try cursor.seek(atLeast: [firstWordByte])
        while let key = entry?.key {
            var lcp = 0
            let n = min(key.count, path.count)
            while lcp < n, key[lcp] == path[lcp] { lcp += 1 }
            var depth = automaton.depth
            while boundaries[depth] > lcp { depth -= 1 }
            automaton.truncate(to: depth)
            path.removeLast(path.count - boundaries[depth])
            boundaries.removeLast(boundaries.count - depth - 1)

            var position = boundaries[depth]
            var alive = true
            var final = automaton.isFinal
            while !final, position < key.count {
                let length = min(UTF8Scalars.sequenceLength(key[position]), key.count - position)
                let scalar = UTF8Scalars.scalar(in: key, at: position, length: length)
                for offset in 0..<length { path.append(key[position + offset]) }
                position += length
                boundaries.append(position)
                if !automaton.push(scalar) { alive = false; break }
                final = automaton.isFinal
            }
            if alive, final, let distance = automaton.distance {
                // Every key below the current prefix has this distance: the prefix as a region,
                // or the run of its keys without further automaton steps.
                if subtrees && !path.isEmpty {
                    body(path, distance, true)
                    entry = try skipSubtree(&cursor, of: &path)
                    continue
                }
                body(Array(key), distance, false)
                entry = try cursor.nextKey()
                while let next = entry?.key, next.hasPrefix(path) {
                    body(Array(next), distance, false)
                    entry = try cursor.nextKey()
                }
                continue
            }
            if !alive {
                entry = try skipSubtree(&cursor, of: &path)
                continue
            }
            if let distance = automaton.distance { body(Array(key), distance, false) }
            entry = try cursor.nextKey()
        }
    }

    /// The first key after the subtree of `path` (the cursor on its first key). Most subtrees are
    /// a key or two deep in the trie, where stepping is cheaper than a B+tree descent; a seek past
    /// `path + 0xFF` handles big ones (UTF-8 never contains 0xFF, so every key with that prefix
    /// sorts before it).
    private static func skipSubtree(_ cursor: inout Cursor, of path: inout [UInt8]) throws -> Cursor.Entry? {
        var steps = 0
        var entry = try cursor.nextKey()
        while let next = entry?.key, next.hasPrefix(path) {
            steps += 1
            if steps == 8 {
                path.append(0xFF)
                entry = try cursor.seek(atLeast: path)
                path.removeLast()
                break
            }
            entry = try cursor.nextKey()
        }
        return entry
    }

    /// The regions that partition the subtree of `prefix`: the term `prefix` itself if there is
    /// one (not a subtree), then the subtree of each next scalar the keys under it have, in key
    /// order. One seek per region: each child's keys are skipped by seeking past its prefix.
    static func childRegions(_ cursor: inout Cursor, of prefix: [UInt8], distance: Int) throws -> [TermRegion] {
        var regions: [TermRegion] = []
        var entry = try cursor.seek(atLeast: prefix)
        while let key = entry?.key, key.hasPrefix(prefix) {
            if key.count == prefix.count {
                regions.append(TermRegion(prefix: prefix, distance: distance, isSubtree: false))
                entry = try cursor.nextKey()
                continue
            }
            let length = min(Int(UTF8Scalars.sequenceLength(key[prefix.count])), key.count - prefix.count)
            let child = Array(key[range: 0..<(prefix.count + length)])
            regions.append(TermRegion(prefix: child, distance: distance, isSubtree: true))
            // Past every key starting with `child`: the child with its last byte raised (a byte of
            // valid UTF-8 is never 0xFF, so this never carries).
            var next = child
            next[next.count - 1] &+= 1
            entry = try cursor.seek(atLeast: next)
        }
        return regions
    }

    /// The keys that start with `prefix`, at distance 0, as one ``TermList``.
    static func terms(_ cursor: inout Cursor, withPrefix prefix: [UInt8]) throws -> TermList {
        var terms = TermList()
        try forEachTerm(&cursor, withPrefix: prefix) { key, _ in
            terms.append(key, distance: 0)
            return true
        }
        return terms
    }

    /// Hands each key that starts with `prefix`, in order, with its value (both views into the
    /// map) to `body` until it returns false; returns whether every key was handed over. One
    /// seek, then a step a key: the value is read where the walk passes it, not looked up again.
    @discardableResult
    static func forEachTerm(_ cursor: inout Cursor, withPrefix prefix: [UInt8],
                            _ body: (_ key: Bytes, _ value: Bytes) throws -> Bool) throws -> Bool {
        var entry = try cursor.seek(atLeast: prefix)
        while let (key, value) = entry, key.hasPrefix(prefix) {
            guard try body(key, value) else { return false }
            entry = try cursor.nextKey()
        }
        return true
    }
}
