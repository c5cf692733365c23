/// Bearer-token checks, in constant time (no early exit on the first differing byte, and the
/// length is compared without leaking which prefix matched).
public enum Authorization {
    /// Whether an `authorization` header value carries `token`.
    public static func allows(_ header: String?, token: String) -> Bool {
        guard let header, header.hasPrefix("Bearer ") else { return false }
        let given = Array(header.utf8.dropFirst(7))
        let expected = Array(token.utf8)
        var difference = UInt8(truncatingIfNeeded: given.count ^ expected.count)
        for i in 0..<expected.count {
            difference |= expected[i] ^ (i < given.count ? given[i] : 0)
        }
        return difference == 0 && given.count == expected.count
    }
}
