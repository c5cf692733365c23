/// The queue of body bytes written for one stream and not yet taken by nghttp2, plus how the stream
/// ends (trailers or plain END_STREAM).
///
/// nghttp2's data-source callback copies out of the queue straight into its frame buffer, which is
/// the only copy on the way to the socket buffer (see ``ByteQueue``).
struct OutboundBody {
    private var bytes = ByteQueue()
    /// No more body will be written.
    var ended = false
    /// Trailers to send after the body (then END_STREAM rides on the trailers' HEADERS frame).
    var trailers: [HTTP2HeaderField]? = nil
    /// The data source returned NGHTTP2_ERR_DEFERRED; a write must call `nghttp2_session_resume_data`.
    var deferred = false

    var isDrained: Bool { bytes.isEmpty }

    mutating func append(_ bytes: [UInt8]) { self.bytes.append(bytes) }

    /// Copies up to `capacity` queued bytes into `buffer`; returns how many.
    mutating func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        bytes.read(into: buffer, capacity: capacity)
    }
}
