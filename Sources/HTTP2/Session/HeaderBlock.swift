internal import CNghttp2

/// Header fields laid out for one `nghttp2_submit_*` call: all names and values in one byte buffer
/// (names ASCII-lowercased as HTTP/2 requires) and an `nghttp2_nv` array pointing into it.
/// nghttp2 copies the fields during the submit call, so the pointers only need to live for
/// `withNameValues`.
///
/// A session keeps one and refills it for every submit (``reset()``): its buffers keep their
/// capacity, so a header block costs no allocation once the connection has sent a few (a
/// coordinator submits four requests and reads four answers per client call, and building
/// blocks afresh cost it five allocations each).
struct HeaderBlock {
    private var bytes: [UInt8] = []
    private var spans: [(name: Int, nameCount: Int, value: Int, valueCount: Int)] = []
    private var nva: [nghttp2_nv] = []

    init() {
        bytes.reserveCapacity(256)
        spans.reserveCapacity(12)
        nva.reserveCapacity(12)
        bytes.append(0)  // never empty, so the base address always exists
    }

    /// Empties the block, keeping its capacity.
    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(0)
        spans.removeAll(keepingCapacity: true)
    }

    mutating func append(name: String, value: String) {
        let nameStart = bytes.count
        for byte in name.utf8 {
            bytes.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte)
        }
        let valueStart = bytes.count
        bytes.append(contentsOf: value.utf8)
        spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
    }

    mutating func append(_ fields: [HTTP2HeaderField]) {
        for field in fields { append(name: field.name, value: field.value) }
    }

    mutating func withNameValues<R>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        nva.removeAll(keepingCapacity: true)
        return bytes.withUnsafeBufferPointer { buffer in
            // nghttp2_nv wants mutable pointers but only reads through them.
            let base = UnsafeMutablePointer(mutating: buffer.baseAddress!)
            for span in spans {
                nva.append(nghttp2_nv(name: base + span.name, value: base + span.value, namelen: span.nameCount,
                                      valuelen: span.valueCount, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            let count = nva.count
            if count == 0 { nva.append(nghttp2_nv()) }  // a valid pointer even for an empty block
            return nva.withUnsafeBufferPointer { body($0.baseAddress!, count) }
        }
    }
}
