/// Entry points for the fuzz targets (`scripts/fuzz.sh`, `Tests/Fuzz/`): arbitrary bytes in, a
/// return (never a trap) out. Public so that the fuzz package reaches decoders that are
/// otherwise internal.
public enum IndexFuzzing {
    /// A search page token as a client sends it back: decoded as the search engine does (which
    /// refuses what this service did not issue), and re-encoded when it decodes.
    public static func pageToken(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let token = try? PageToken(decoding: text) { _ = token.encoded() }
    }
}
