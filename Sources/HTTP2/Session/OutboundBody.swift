/// The queue of body bytes written for one stream and not yet taken by nghttp2, plus how the stream
/// ends (trailers or plain END_STREAM).
///
/// Chunks are kept as the caller gave them (no copy into a ring buffer); nghttp2's data-source
/// callback copies out of them straight into its frame buffer, which is the only copy on the way to
/// the socket buffer.
struct OutboundBody {
    private var chunks: [[UInt8]] = []
    /// The first chunk not completely taken.
    private var head = 0
    /// Bytes of `chunks[head]` already taken.
    private var offset = 0
    /// Bytes queued and not yet taken.
    private(set) var queuedBytes = 0
    /// No more body will be written.
    var ended = false
    /// Trailers to send after the body (then END_STREAM rides on the trailers' HEADERS frame).
    var trailers: [HTTP2HeaderField]? = nil
    /// The data source returned NGHTTP2_ERR_DEFERRED; a write must call `nghttp2_session_resume_data`.
    var deferred = false

    var isDrained: Bool { queuedBytes == 0 }

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        chunks.append(bytes)
        queuedBytes += bytes.count
    }

    /// Copies up to `capacity` queued bytes into `buffer`; returns how many.
    mutating func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        var written = 0
        while written < capacity, head < chunks.count {
            let count = chunks[head].withUnsafeBufferPointer { source in
                let count = min(source.count - offset, capacity - written)
                (buffer + written).update(from: source.baseAddress! + offset, count: count)
                return count
            }
            written += count
            offset += count
            if offset == chunks[head].count {
                head += 1
                offset = 0
            }
        }
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32 {
            chunks.removeFirst(head)  // amortised: at most once per 32 chunks taken
            head = 0
        }
        queuedBytes -= written
        return written
    }
}
