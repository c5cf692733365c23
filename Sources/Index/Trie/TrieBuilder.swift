/// Builds the heavy nodes of the prefix trie from terms fed in ascending byte order.
///
/// Works like building a trie from sorted keys: a stack holds the open nodes along the current
/// term's path; when the next term leaves a node's subtree the node is finished, written if heavy,
/// and its lists are merged into its parent's. The stack's nodes and a scratch buffer are reused,
/// so the build allocates per heavy node written, not per trie node.
/// Time O(Σ term length × K), memory O(depth × K).
struct TrieBuilder {
    private struct OpenNode {
        var prefixLength = 0
        var startsWith: [UInt32] = []
        var startsWithTruncated = false
        var all: [UInt32] = []
        var allTruncated = false
        var postings = 0
        var completions: [Completion] = []
        var completionsTruncated = false

        mutating func reset(prefixLength: Int) {
            self.prefixLength = prefixLength
            startsWith.removeAll(keepingCapacity: true)
            all.removeAll(keepingCapacity: true)
            completions.removeAll(keepingCapacity: true)
            startsWithTruncated = false
            allTruncated = false
            completionsTruncated = false
            postings = 0
        }
    }

    struct Completion {
        var term: [UInt8]
        var best: UInt32
        static func < (a: Completion, b: Completion) -> Bool {
            a.best != b.best ? a.best < b.best : a.term.lexicographicallyPrecedes(b.term)
        }
    }

    private let parameters: TrieParameters
    /// Whether a document's first title word starts with a term, for the startsWith lists.
    private let firstWordStarts: (_ document: UInt32, _ with: [UInt8]) -> Bool
    private var stack: [OpenNode] = []
    private var depth = 0
    private var currentTerm: [UInt8] = []
    private var scratch: [UInt32] = []
    private var scratchCompletions: [Completion] = []
    private let emit: ([UInt8], HeavyNode) throws -> Void

    init(parameters: TrieParameters, firstWordStarts: @escaping (_ document: UInt32, _ with: [UInt8]) -> Bool,
         emit: @escaping ([UInt8], HeavyNode) throws -> Void) {
        self.parameters = parameters
        self.firstWordStarts = firstWordStarts
        self.emit = emit
    }

    /// Adds one term (strictly greater than the previous one) with its name postings (ascending)
    /// and its best entry as a completion (its first posting that offers it, see
    /// ``CompletionSource``; nil when none does: the word is then no completion).
    mutating func add(term: [UInt8], postings: [UInt32], completionBest: UInt32?) throws {
        // Close nodes that are not prefixes of the new term (they belong to the previous term).
        while depth > 0 {
            let length = stack[depth - 1].prefixLength
            if length <= term.count, currentTerm.count >= length, term[0..<length].elementsEqual(currentTerm[0..<length]) { break }
            try pop()
        }
        currentTerm = term
        // Open nodes for every scalar boundary of the term beyond the deepest open node.
        var end = depth > 0 ? stack[depth - 1].prefixLength : 0
        while end < term.count {
            end += 1
            while end < term.count, term[end] & 0xC0 == 0x80 { end += 1 }  // continuation bytes
            if depth == stack.count { stack.append(OpenNode()) }
            stack[depth].reset(prefixLength: end)
            depth += 1
        }
        // The term's own node receives its postings.
        let k = parameters.listSize
        let top = depth - 1
        var startsWith: [UInt32] = []
        var truncated = false
        for doc in postings where firstWordStarts(doc, term) {
            if startsWith.count == k { truncated = true; break }
            startsWith.append(doc)
        }
        if Self.merge(&stack[top].startsWith, startsWith, scratch: &scratch, limit: parameters.listSize) { stack[top].startsWithTruncated = true }
        stack[top].startsWithTruncated = stack[top].startsWithTruncated || truncated
        if Self.merge(&stack[top].all, postings.count > k ? Array(postings.prefix(k)) : postings, scratch: &scratch, limit: parameters.listSize) { stack[top].allTruncated = true }
        stack[top].allTruncated = stack[top].allTruncated || postings.count > k
        stack[top].postings += postings.count
        if let best = completionBest,
           Self.mergeCompletions(&stack[top].completions, [Completion(term: term, best: best)], scratch: &scratchCompletions,
                                 limit: parameters.completions) {
            stack[top].completionsTruncated = true
        }
    }

    /// Finishes every open node; call once after the last term.
    mutating func finish() throws {
        while depth > 0 { try pop() }
    }

    private mutating func pop() throws {
        depth -= 1
        let node = stack[depth]
        if node.postings > parameters.heavyThreshold {
            var heavy = HeavyNode(startsWith: node.startsWith, startsWithTruncated: node.startsWithTruncated,
                                  all: node.all, allTruncated: node.allTruncated, postings: node.postings)
            heavy.completions = node.completions.map { ($0.term, $0.best) }
            heavy.completionsTruncated = node.completionsTruncated
            try emit(Array(currentTerm[0..<node.prefixLength]), heavy)
        }
        guard depth > 0 else { return }
        let parent = depth - 1
        if Self.merge(&stack[parent].startsWith, node.startsWith, scratch: &scratch, limit: parameters.listSize) { stack[parent].startsWithTruncated = true }
        stack[parent].startsWithTruncated = stack[parent].startsWithTruncated || node.startsWithTruncated
        if Self.merge(&stack[parent].all, node.all, scratch: &scratch, limit: parameters.listSize) { stack[parent].allTruncated = true }
        stack[parent].allTruncated = stack[parent].allTruncated || node.allTruncated
        stack[parent].postings += node.postings
        if Self.mergeCompletions(&stack[parent].completions, node.completions, scratch: &scratchCompletions, limit: parameters.completions) {
            stack[parent].completionsTruncated = true
        }
        stack[parent].completionsTruncated = stack[parent].completionsTruncated || node.completionsTruncated
    }

    /// `target` becomes the smallest `listSize` distinct values of `target` ∪ `other` (both ascending).
    @discardableResult
    private static func merge(_ target: inout [UInt32], _ other: [UInt32], scratch: inout [UInt32], limit: Int) -> Bool {
        if other.isEmpty { return false }
        var truncated = false
        scratch.removeAll(keepingCapacity: true)
        var i = 0, j = 0
        while i < target.count || j < other.count {
            let next: UInt32
            if j == other.count || (i < target.count && target[i] < other[j]) {
                next = target[i]; i += 1
            } else if i == target.count || other[j] < target[i] {
                next = other[j]; j += 1
            } else {
                next = target[i]; i += 1; j += 1
            }
            if scratch.count == limit { truncated = true; break }
            scratch.append(next)
        }
        swap(&target, &scratch)
        return truncated
    }

    /// `target` becomes the best `completions` entries of two lists ordered by (best, term).
    /// Terms are distinct across lists: each term lives in exactly one subtree.
    private static func mergeCompletions(_ target: inout [Completion], _ other: [Completion],
                                         scratch scratchCompletions: inout [Completion], limit: Int) -> Bool {
        if other.isEmpty { return false }
        var truncated = false
        scratchCompletions.removeAll(keepingCapacity: true)
        var i = 0, j = 0
        while i < target.count || j < other.count {
            let takeTarget = j == other.count || (i < target.count && target[i] < other[j])
            if scratchCompletions.count == limit { truncated = true; break }
            if takeTarget { scratchCompletions.append(target[i]); i += 1 } else { scratchCompletions.append(other[j]); j += 1 }
        }
        swap(&target, &scratchCompletions)
        return truncated
    }
}
