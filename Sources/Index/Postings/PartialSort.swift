/// Reading document numbers in ascending order when the reader usually stops after a few.
///
/// Why: the general plan lists up to 4,096 titles that start with the typed text ("thou s" on
/// the synthetic 1M catalog) and enters the best of them, in rank (= document number) order,
/// until the entries are full of them: usually after ten or twenty. Sorting the whole listing
/// (a radix sort) and intersecting it whole with the candidates were a fifth of such a keystroke.
/// Selecting the smallest few first is one partitioning pass over the numbers.

/// Calls `body` with the numbers of `values` in ascending order (repeats included) until it
/// returns false. The smallest `first` are selected (``selectSmallest(_:_:)``, O(n)) and sorted,
/// and only if `body` reads past them is the rest sorted (``sortDocuments(_:)``). `values` is left
/// in an unspecified order.
func forEachAscending(_ values: inout [UInt32], first: Int = 64, _ body: (UInt32) throws -> Bool) rethrows {
    let n = values.count
    // Selecting pays only when it leaves most numbers unsorted.
    guard first > 0, n > 4 * first else {
        sortDocuments(&values)
        for value in values where try !body(value) { return }
        return
    }
    values.withUnsafeMutableBufferPointer { selectSmallest($0, first) }
    values[..<first].sort()
    for value in values[..<first] where try !body(value) { return }
    var rest = Array(values[first...])
    sortDocuments(&rest)
    for value in rest where try !body(value) { return }
}

/// Rearranges `values` so that its first `count` elements are its `count` smallest (in no
/// particular order; of equal values, any). Quickselect: partitions around the median of three
/// until the boundary is found, O(n) on average; after 2·log₂(n) rounds without finding it
/// (inputs built to defeat the pivot choice), the range left is sorted instead, so the cost stays
/// O(n log n) at worst.
func selectSmallest(_ values: UnsafeMutableBufferPointer<UInt32>, _ count: Int) {
    guard count > 0, count < values.count, let p = values.baseAddress else { return }
    var low = 0, high = values.count - 1  // the boundary lies in low...high
    var rounds = 2 * (Int.bitWidth - values.count.leadingZeroBitCount)
    while low < high {
        if rounds == 0 {
            var rest = UnsafeMutableBufferPointer(rebasing: values[low...high])
            rest.sort()
            return
        }
        rounds -= 1
        // Median of three as the pivot, so sorted and reverse-sorted input split evenly.
        let mid = low + (high - low) / 2
        let (a, b, c) = (p[low], p[mid], p[high])
        let pivot = max(min(a, b), min(max(a, b), c))
        // Hoare partition: afterwards low...j holds values ≤ pivot, j+1...high values ≥ pivot.
        var i = low - 1, j = high + 1
        while true {
            repeat { i += 1 } while p[i] < pivot
            repeat { j -= 1 } while p[j] > pivot
            if i >= j { break }
            values.swapAt(i, j)
        }
        // The count smallest are indices 0..<count: the boundary index is count - 1.
        if count - 1 <= j { high = j } else { low = j + 1 }
    }
}
