/// What a session knows about one open stream: the message being received (accumulated until it is
/// complete) and the body being sent. A class so that the stream table hands out references and a
/// callback can mutate a stream without copy-on-write churn in the dictionary.
final class StreamState {
    var id: Int32

    // Received message. Pseudo-header fields are kept apart from regular fields.
    var method = ""
    var path = ""
    var authority = ""
    var scheme = ""
    var status = 0
    var headers: [HTTP2HeaderField] = []
    var trailers: [HTTP2HeaderField] = []
    var body: [UInt8] = []
    /// RFC 9113 §6.5.2 size of the header fields received so far (headers and trailers).
    var headerListSize = 0
    var headersTooLarge = false
    /// The (final) header block is complete; later header blocks are trailers.
    var headersDone = false
    /// When the first header block began (monotonic ns): a server bounds how long it may take.
    var headStarted: UInt64 = 0
    /// The peer sent END_STREAM.
    var remoteEnded = false
    /// The complete message has been surfaced as an event.
    var delivered = false
    /// A rejection has been surfaced; nothing more is accumulated for this stream.
    var rejected = false

    // Sent message.
    /// HEADERS have been submitted for this stream (response on a server, request on a client).
    var headersSubmitted = false
    var outbound = OutboundBody()

    init(id: Int32) { self.id = id }
}
