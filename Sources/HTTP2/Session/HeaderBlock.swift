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
///
/// Fields whose value changes with every message (``isPerMessage(_:)``: a deadline, a request id,
/// a length) go out as HPACK literals that are not indexed. Indexed, each would take a new entry
/// in the connection's dynamic table per message and push the constant fields (path, authority,
/// content type…) out of it within a few calls, so those were sent as Huffman-coded literals
/// again and again; not indexed, the constant fields stay one-byte references for the life of the
/// connection, on both ends.
struct HeaderBlock {
    private var bytes: [UInt8] = []
    private var spans: [(name: Int, nameCount: Int, value: Int, valueCount: Int, flags: UInt8)] = []
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
        bytes.append(contentsOf: name.utf8)  // one copy; names are nearly always lowercase already
        for index in nameStart..<bytes.count where bytes[index] >= UInt8(ascii: "A") && bytes[index] <= UInt8(ascii: "Z") {
            bytes[index] |= 0x20
        }
        let valueStart = bytes.count
        bytes.append(contentsOf: value.utf8)
        let perMessage = bytes.withUnsafeBufferPointer { Self.isPerMessage(UnsafeBufferPointer(rebasing: $0[nameStart..<valueStart])) }
        let flags = UInt8(perMessage ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue)
        spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart, flags))
    }

    /// The names, lowercase, of fields whose value is new with (nearly) every message.
    private static let perMessageNames: [[UInt8]] = ["grpc-timeout", "x-request-id", "content-length"].map { Array($0.utf8) }

    static func isPerMessage(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        perMessageNames.contains { $0.count == name.count && $0.elementsEqual(name) }
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
                                      valuelen: span.valueCount, flags: span.flags))
            }
            let count = nva.count
            if count == 0 { nva.append(nghttp2_nv()) }  // a valid pointer even for an empty block
            return nva.withUnsafeBufferPointer { body($0.baseAddress!, count) }
        }
    }
}
