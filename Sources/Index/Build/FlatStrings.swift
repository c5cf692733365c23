/// Strings stored back to back in one buffer: the first title words of every document (for the
/// trie's startsWith lists), and the sort titles and ids the builder ranks and orders entries by.
///
/// Comparing two `String`s byte-wise (``compareUTF8(_:_:)``) retains and releases both per
/// comparison; sorting 235k cities entries by title made ~4M comparisons that way. Here a
/// comparison is one `memcmp` between two ranges of one buffer.
struct FlatStrings {
    private(set) var bytes: [UInt8] = []
    private var ends: [Int] = []

    init() {}

    /// The strings of `strings`, in order, with room reserved up front.
    init<S: Collection>(_ strings: S) where S.Element == String {
        ends.reserveCapacity(strings.count)
        for string in strings { append(string) }
    }

    mutating func append(_ string: String) {
        bytes.append(contentsOf: string.utf8)
        ends.append(bytes.count)
    }

    var count: Int { ends.count }

    private func range(_ index: Int) -> Range<Int> { (index == 0 ? 0 : ends[index - 1])..<ends[index] }

    /// Whether string `index` starts with `prefix`.
    func element(_ index: Int, startsWith prefix: [UInt8]) -> Bool {
        let range = range(index)
        guard range.count >= prefix.count else { return false }
        for i in 0..<prefix.count where bytes[range.lowerBound + i] != prefix[i] { return false }
        return true
    }

    /// Calls `body` with the bytes of string `index`.
    func withElement<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let range = range(index)
        return try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// memcmp order of strings `a` and `b` (-1, 0, 1), or of their first `cut` bytes.
    func compare(_ a: Int, _ b: Int, cut: Int = .max) -> Int {
        var x = range(a), y = range(b)
        if x.count > cut { x = x.lowerBound..<(x.lowerBound + cut) }
        if y.count > cut { y = y.lowerBound..<(y.lowerBound + cut) }
        return bytes.withUnsafeBufferPointer { all in
            compareBytes(UnsafeBufferPointer(rebasing: all[x]), UnsafeBufferPointer(rebasing: all[y]))
        }
    }
}
