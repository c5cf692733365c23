/// Builds the heavy nodes of the prefix trie from terms fed in ascending byte order.
///
/// Works like building a trie from sorted keys: a stack holds the open nodes along the current
/// term's path; when the next term leaves a node's subtree the node is finished, written if heavy,
/// and its lists are merged into its parent's. Time O(Σ term length × K), memory O(depth × K).
struct TrieBuilder {
    private struct OpenNode {
        var prefix: ArraySlice<UInt8>
        var startsWith: [UInt32] = []
        var startsWithTruncated = false
        var all: [UInt32] = []
        var allTruncated = false
        var postings = 0
        var completions: [(term: [UInt8], best: UInt32)] = []
        var completionsTruncated = false
    }

    private let parameters: TrieParameters
    /// First title word of each document (by document number), for the startsWith lists.
    private let firstWords: [[UInt8]]
    private var stack: [OpenNode] = []
    private var currentTerm: [UInt8] = []
    private let emit: ([UInt8], HeavyNode) throws -> Void

    init(parameters: TrieParameters, firstWords: [[UInt8]], emit: @escaping ([UInt8], HeavyNode) throws -> Void) {
        self.parameters = parameters
        self.firstWords = firstWords
        self.emit = emit
    }

    /// Adds one term (strictly greater than the previous one) with its name postings (ascending).
    mutating func add(term: [UInt8], postings: [UInt32]) throws {
        // Close nodes that are not prefixes of the new term.
        while let top = stack.last, !term.starts(with: top.prefix) {
            try pop()
        }
        currentTerm = term
        // Open nodes for every scalar boundary of the term beyond the deepest open node.
        let depth = stack.last?.prefix.count ?? 0
        var end = depth
        while end < term.count {
            end += 1
            while end < term.count, term[end] & 0xC0 == 0x80 { end += 1 }  // continuation bytes
            stack.append(OpenNode(prefix: term[0..<end]))
        }
        // The term's own node receives its postings.
        let k = parameters.listSize
        var node = stack[stack.count - 1]
        var startsWith: [UInt32] = []
        for doc in postings where firstWords[Int(doc)].starts(with: term) {
            if startsWith.count == k { node.startsWithTruncated = true; break }
            startsWith.append(doc)
        }
        node.startsWith = Self.union(node.startsWith, startsWith, limit: k, truncated: &node.startsWithTruncated)
        node.allTruncated = node.allTruncated || postings.count > k
        node.all = Self.union(node.all, Array(postings.prefix(k)), limit: k, truncated: &node.allTruncated)
        node.postings += postings.count
        if let best = postings.first {
            node.completions = Self.union(node.completions, [(term, best)], limit: parameters.completions,
                                          truncated: &node.completionsTruncated)
        }
        stack[stack.count - 1] = node
    }

    /// Finishes every open node; call once after the last term.
    mutating func finish() throws {
        while !stack.isEmpty { try pop() }
    }

    private mutating func pop() throws {
        let node = stack.removeLast()
        if node.postings > parameters.heavyThreshold {
            var heavy = HeavyNode(startsWith: node.startsWith, startsWithTruncated: node.startsWithTruncated,
                                  all: node.all, allTruncated: node.allTruncated, postings: node.postings)
            heavy.completions = node.completions
            heavy.completionsTruncated = node.completionsTruncated
            try emit(Array(node.prefix), heavy)
        }
        guard var parent = stack.popLast() else { return }
        let k = parameters.listSize
        parent.startsWith = Self.union(parent.startsWith, node.startsWith, limit: k, truncated: &parent.startsWithTruncated)
        parent.startsWithTruncated = parent.startsWithTruncated || node.startsWithTruncated
        parent.all = Self.union(parent.all, node.all, limit: k, truncated: &parent.allTruncated)
        parent.allTruncated = parent.allTruncated || node.allTruncated
        parent.postings += node.postings
        parent.completions = Self.union(parent.completions, node.completions, limit: parameters.completions,
                                        truncated: &parent.completionsTruncated)
        parent.completionsTruncated = parent.completionsTruncated || node.completionsTruncated
        stack.append(parent)
    }

    /// The best `limit` of two lists of distinct terms ordered by (best document, term).
    static func union(_ a: [(term: [UInt8], best: UInt32)], _ b: [(term: [UInt8], best: UInt32)], limit: Int,
                      truncated: inout Bool) -> [(term: [UInt8], best: UInt32)] {
        var merged = a + b
        merged.sort { $0.best != $1.best ? $0.best < $1.best : $0.term.lexicographicallyPrecedes($1.term) }
        if merged.count > limit {
            truncated = true
            merged.removeSubrange(limit...)
        }
        return merged
    }

    /// The smallest `limit` distinct values of two ascending lists; sets `truncated` if any were cut.
    static func union(_ a: [UInt32], _ b: [UInt32], limit: Int, truncated: inout Bool) -> [UInt32] {
        if b.isEmpty { return a }
        if a.isEmpty {
            if b.count > limit { truncated = true; return Array(b.prefix(limit)) }
            return b
        }
        var result: [UInt32] = []
        result.reserveCapacity(min(limit, a.count + b.count))
        var i = 0, j = 0
        while i < a.count || j < b.count {
            let next: UInt32
            if j == b.count || (i < a.count && a[i] < b[j]) {
                next = a[i]; i += 1
            } else if i == a.count || b[j] < a[i] {
                next = b[j]; j += 1
            } else {
                next = a[i]; i += 1; j += 1
            }
            if result.count == limit { truncated = true; break }
            result.append(next)
        }
        return result
    }
}
