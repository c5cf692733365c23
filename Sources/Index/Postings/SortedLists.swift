// Set operations on sorted lists of document numbers: the candidate lists every plan intersects,
// unions and subtracts.

/// The sorted, distinct elements of many sorted lists (see ``Generation/documents(of:includeDescription:in:)``).
func unionOfMany(_ lists: [[UInt32]]) -> [UInt32] {
    var total = 0
    var end = 0
    for list in lists {
        total += list.count
        if let last = list.last { end = max(end, Int(last) + 1) }
    }
    guard total > 0 else { return [] }
    if total < end / 64 {
        var docs: [UInt32] = []
        docs.reserveCapacity(total)
        for list in lists { docs.append(contentsOf: list) }
        sortUnique(&docs)
        return docs
    }
    var bits = [UInt64](repeating: 0, count: (end + 63) / 64)
    bits.withUnsafeMutableBufferPointer { bits in
        for list in lists {
            for doc in list { bits[Int(doc >> 6)] |= 1 << UInt64(doc & 63) }
        }
    }
    var docs: [UInt32] = []
    docs.reserveCapacity(min(total, end))
    for (index, var word) in bits.enumerated() {
        while word != 0 {
            docs.append(UInt32(index << 6 | word.trailingZeroBitCount))
            word &= word - 1
        }
    }
    return docs
}

/// The sorted, distinct elements of sorted `a` and `b`.
func union(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
    var result: [UInt32] = []
    result.reserveCapacity(a.count + b.count)
    var i = 0, j = 0
    while i < a.count && j < b.count {
        if a[i] < b[j] { result.append(a[i]); i += 1 } else if b[j] < a[i] { result.append(b[j]); j += 1 } else { result.append(a[i]); i += 1; j += 1 }
    }
    if i < a.count { result.append(contentsOf: a[i...]) }
    if j < b.count { result.append(contentsOf: b[j...]) }
    return result
}

/// Whether sorted `list` contains `value` (binary search).
func contains(_ list: [UInt32], _ value: UInt32) -> Bool {
    var low = 0, high = list.count
    while low < high {
        let mid = (low + high) / 2
        if list[mid] < value { low = mid + 1 } else { high = mid }
    }
    return low < list.count && list[low] == value
}

/// Elements of sorted `a` that are in sorted `b`.
func intersect(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
    // Written into the reserved buffer: an append checks capacity and uniqueness per element.
    [UInt32](unsafeUninitializedCapacity: min(a.count, b.count)) { buffer, written in
        var n = 0
        forEachCommon(a, b) { buffer[n] = $0; n &+= 1 }
        written = n
    }
}

/// |a ∩ b| for sorted lists.
func intersectionCount(_ a: [UInt32], _ b: [UInt32]) -> Int {
    var count = 0
    forEachCommon(a, b) { _ in count += 1 }
    return count
}

/// Calls `body` with each element of sorted `a` that is in sorted `b`, ascending. When one list is
/// much shorter, its elements are galloped into the longer one: O(s log(l/s)) instead of
/// O(s + l) (a few hundred candidates against a category or a common word of 10⁵ documents, on
/// every keystroke).
@inline(__always)
private func forEachCommon(_ a: [UInt32], _ b: [UInt32], _ body: (UInt32) -> Void) {
    a.withUnsafeBufferPointer { a in
        b.withUnsafeBufferPointer { b in
            let (short, long) = a.count <= b.count ? (a, b) : (b, a)
            if short.count * 16 < long.count {
                var index = 0
                for value in short {
                    index = gallop(long, to: value, from: index)
                    if index == long.count { return }
                    if long[index] == value { body(value) }
                }
                return
            }
            var i = 0, j = 0
            while i < a.count && j < b.count {
                let x = a[i], y = b[j]
                if x == y { body(x) }
                i &+= x <= y ? 1 : 0
                j &+= y <= x ? 1 : 0
            }
        }
    }
}

/// Elements of sorted `a` that are not in sorted `b`.
func subtract(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
    var result: [UInt32] = []
    result.reserveCapacity(a.count)
    var j = 0
    for x in a {
        while j < b.count && b[j] < x { j += 1 }
        if j < b.count && b[j] == x { continue }
        result.append(x)
    }
    return result
}

/// Sorts and removes repeats in place.
func sortUnique(_ docs: inout [UInt32]) {
    sortDocuments(&docs)
    var write = 0
    for read in docs.indices where read == 0 || docs[read] != docs[read - 1] {
        docs[write] = docs[read]
        write += 1
    }
    docs.removeSubrange(write...)
}

/// Sorts document numbers ascending, in place: from ``radixSortMinimum`` numbers on, a radix
/// sort (least significant digit first, as many passes as the largest number needs).
///
/// Why: the standard library's sort is a stable merge sort comparing through a closure,
/// O(n log n). Listing the 4,096 titles that start with "camakee f" (synthetic 1M catalog) and
/// sorting their documents was a third of that keystroke, and the 466 of "griachijix b" a sixth
/// of it. A radix pass is two sequential reads and one scattered write per number, plus clearing
/// and summing a count table: O(n + 2^bits).
///
/// The digit's width follows the count. In a query the count table's cost is what decides: it
/// is cold, and summing it is a loop of dependent adds. Share of "griachijix B"'s engine samples
/// in the sort (perf, 3,000 answers): standard sort 15.5%; 11-bit digits with an `Int` table
/// 14.0%; 7-bit 9.6%; 8-bit with a `UInt32` table 7.2%. For "camakee f"'s 4,096: 11-bit 10.1%,
/// 8-bit 12.9%. Below 64 numbers the standard sort wins (`swiftc -O`, 200 sorts of random
/// numbers: 350 ns at 32, against 720 ns for a radix sort). Eight bits take three passes below
/// 2^24 documents (a 1 KiB table), eleven two below 2^22 (8 KiB).
func sortDocuments(_ docs: inout [UInt32]) {
    guard docs.count >= radixSortMinimum else {
        docs.sort()
        return
    }
    radixSort(&docs, from: 0)
}

/// Sorts pairs packed as `key << 32 | position` ascending, where the positions ascend in the
/// input (each pair's index, say): that is a stable sort by key, with no closure and nothing to
/// retain. The radix sort reads only the keys, and keeps equal keys in input order.
///
/// Why: ``SuggestContext/completeTypoWords(_:terms:floor:limit:into:in:)`` orders the words a typo'd
/// partial word matches by their first posting, and "New Terr" (cities) has 1,298 of them: the
/// standard library's sort of those tuples was an eighth of the keystroke.
func sortPairsByKey(_ pairs: inout [UInt64]) {
    guard pairs.count >= radixSortMinimum else {
        pairs.sort()
        return
    }
    radixSort(&pairs, from: 32)
}

/// The least-significant-digit radix sort of ``sortDocuments(_:)`` over the bits of each value
/// from bit `low` up (stable: values equal there keep their order).
private func radixSort<Value: FixedWidthInteger & UnsignedInteger>(_ values: inout [Value], from low: Int) {
    let n = values.count
    let bits = n < wideDigitMinimum ? 8 : 11
    // The passes the largest key needs (its highest bit, from the OR of all).
    let highest = values.reduce(0, |) >> low
    let passes = (Value.bitWidth - highest.leadingZeroBitCount + bits - 1) / bits
    guard passes > 0 else { return }   // all keys zero
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 1 << bits) { counts in
        withUnsafeTemporaryAllocation(of: Value.self, capacity: n) { scratch in
            values.withUnsafeMutableBufferPointer { numbers in
                var source = numbers, target = scratch
                let mask = 1 << bits - 1
                for pass in 0..<passes {
                    let shift = low + pass * bits
                    counts.initialize(repeating: 0)
                    for value in source { counts[Int(truncatingIfNeeded: value >> shift) & mask] &+= 1 }
                    var total: UInt32 = 0
                    for digit in counts.indices {
                        let count = counts[digit]
                        counts[digit] = total
                        total &+= count
                    }
                    for value in source {
                        let digit = Int(truncatingIfNeeded: value >> shift) & mask
                        target[Int(counts[digit])] = value
                        counts[digit] &+= 1
                    }
                    swap(&source, &target)
                }
                // After an odd number of passes the sorted values are in the scratch buffer.
                if passes % 2 == 1 { _ = numbers.update(fromContentsOf: scratch) }
            }
        }
    }
}

/// Below this many numbers the standard sort beats a radix sort's fixed cost (clearing and
/// summing its count table each pass).
let radixSortMinimum = 64
/// From this many numbers on, 11-bit digits (fewer passes) beat 8-bit ones (a smaller table).
let wideDigitMinimum = 2048

/// The first index at or after `start` whose element of sorted `list` is at least `value`
/// (`list.count` if none): steps of doubling length, then a binary search, so a run of probes in
/// ascending order costs O(log gap) each.
///
/// Read through the array's buffer, and the binary search without a branch on the comparison
/// (the compiler makes it a conditional move): the general plan gallops postings into candidates
/// on most multi-word keystrokes, and this was the largest single cost of the synthetic 1M
/// workload (11% of its samples).
@inline(__always)
func gallop(_ list: [UInt32], to value: UInt32, from start: Int) -> Int {
    list.withUnsafeBufferPointer { gallop($0, to: value, from: start) }
}

/// ``gallop(_:to:from:)`` over a buffer.
@inline(__always)
func gallop(_ list: UnsafeBufferPointer<UInt32>, to value: UInt32, from start: Int) -> Int {
    let count = list.count
    guard start < count, let p = list.baseAddress else { return start }
    var low = start, step = 1
    var high = start
    while high < count, p[high] < value {
        low = high &+ 1
        high &+= step
        step &*= 2
    }
    high = min(high, count)
    // The answer is in low...high: halve the span keeping it there.
    var base = low, span = high &- low
    while span > 1 {
        let half = span / 2
        base = p[base &+ half] < value ? base &+ half : base
        span &-= half
    }
    return span == 1 && p[base] < value ? base &+ 1 : base
}
