internal import CNghttp2

/// The one owner of an `nghttp2_session`: creation, settings, the stream table, the event queue and
/// every call into nghttp2. ``HTTP2ServerSession`` and ``HTTP2ClientSession`` are thin role-specific
/// faces over it.
///
/// Ownership and threading: a `SessionCore` is not thread-safe and is used by one thread at a time
/// (the connection's event loop, or a test). nghttp2 keeps an unretained pointer to it as
/// `user_data` (`Unmanaged`, one context per session, no per-callback allocation); that is sound
/// because the nghttp2 session is deleted in `deinit`, before the object goes away, and nghttp2
/// only calls back synchronously from the calls made here (`mem_recv`, `mem_send`, `submit_*`,
/// `resume_data`), i.e. on the owning thread and while `self` is alive.
final class SessionCore {
    enum Role { case server, client }

    /// What the session observed; drained by the owner after each `receive`/`send`.
    enum Event {
        case request(HTTP2Request)
        case response(HTTP2Response)
        case rejected(streamID: Int32, reason: HTTP2StreamRejection, request: HTTP2RejectedRequest)
        case streamClosed(streamID: Int32, errorCode: HTTP2ErrorCode)
        case goAway(lastStreamID: Int32, errorCode: HTTP2ErrorCode)
    }

    let role: Role
    let configuration: HTTP2SessionConfiguration
    let logger: HTTP2Logger
    /// `nghttp2_session *`, owned: created in `init`, deleted in `deinit`.
    private var handle: OpaquePointer?
    var streams: [Int32: StreamState] = [:]
    /// The stream looked up last. nghttp2 calls back in runs for one stream (its HEADERS' fields,
    /// its DATA, its close), so most look-ups are answered here without hashing the id.
    private var recent: StreamState?

    /// The open stream `id`, if any.
    @inline(__always)
    func stream(_ id: Int32) -> StreamState? {
        if let recent, recent.id == id { return recent }
        let found = streams[id]
        if found != nil { recent = found }
        return found
    }

    /// Forgets stream `id`; returns it if it was open.
    func removeStream(_ id: Int32) -> StreamState? {
        if recent?.id == id { recent = nil }
        return streams.removeValue(forKey: id)
    }
    var events: [Event] = []
    /// Refilled for every block submitted (see ``HeaderBlock``).
    var headerBlock = HeaderBlock()

    var session: OpaquePointer { handle.unsafelyUnwrapped }

    init(role: Role, configuration: HTTP2SessionConfiguration, logger: HTTP2Logger) throws(HTTP2SessionError) {
        self.role = role
        self.configuration = configuration
        self.logger = logger

        var callbacks: OpaquePointer?
        try check(nghttp2_session_callbacks_new(&callbacks), "nghttp2_session_callbacks_new")
        defer { nghttp2_session_callbacks_del(callbacks) }
        SessionCallbacks.install(on: callbacks)

        let context = Unmanaged.passUnretained(self).toOpaque()
        switch role {
        case .server:
            var options: OpaquePointer?
            try check(nghttp2_option_new(&options), "nghttp2_option_new")
            defer { nghttp2_option_del(options) }
            // A backstop: our own bucket (`resetBucket`, checked as each RST_STREAM arrives)
            // ends the connection first, with the right error code.
            nghttp2_option_set_stream_reset_rate_limit(options, configuration.streamResetLimit.burst * 2 + 16,
                                                       configuration.streamResetLimit.perSecond * 2)
            try check(nghttp2_session_server_new2(&handle, callbacks, context, options), "nghttp2_session_server_new2")
        case .client: try check(nghttp2_session_client_new(&handle, callbacks, context), "nghttp2_session_client_new")
        }

        var settings: [nghttp2_settings_entry] = [
            .init(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: configuration.initialWindowSize),
            .init(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: configuration.maxHeaderListSize),
        ]
        switch role {
        case .server:
            settings.append(.init(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                                  value: configuration.maxConcurrentStreams))
        case .client:
            settings.append(.init(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0))
        }
        try check(nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count),
                  "nghttp2_submit_settings")
        if configuration.initialWindowSize > 65_535 {
            // The connection window is not a SETTING: raise it with a WINDOW_UPDATE on stream 0.
            try check(nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0,
                                                            Int32(clamping: configuration.initialWindowSize)),
                      "nghttp2_session_set_local_window_size")
        }
    }

    deinit {
        if let handle { nghttp2_session_del(handle) }
    }

    // MARK: Bytes in, bytes out

    /// Feeds received bytes. Callbacks run inside and append to `events`. A thrown error is fatal for
    /// the connection (bad preface, flooding, out of memory); protocol errors the peer makes are
    /// handled by nghttp2 itself (it queues RST_STREAM or GOAWAY) and do not throw.
    /// `receive` for an array (both session roles offer it).
    func receive(_ bytes: [UInt8]) throws(HTTP2SessionError) {
        let result: Result<Void, HTTP2SessionError> = bytes.withUnsafeBytes { raw in
            do throws(HTTP2SessionError) { try receive(raw) } catch { return .failure(error) }
            return .success(())
        }
        try result.get()
    }

    /// Hands every pending event to `body`, in order, and forgets them; events queued by `body`
    /// itself (responding from inside it) are delivered in the same call.
    func drainEvents(_ body: (Event) throws -> Void) rethrows {
        while !events.isEmpty {
            let batch = events
            events.removeAll(keepingCapacity: true)
            for event in batch { try body(event) }
        }
    }

    func receive(_ bytes: UnsafeRawBufferPointer) throws(HTTP2SessionError) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        var remaining = bytes.count
        var cursor = base.assumingMemoryBound(to: UInt8.self)
        while remaining > 0 {
            let consumed = nghttp2_session_mem_recv(session, cursor, remaining)
            if consumed < 0 { throw HTTP2SessionError(code: Int32(consumed), operation: "nghttp2_session_mem_recv") }
            if consumed == 0 { break }
            remaining -= consumed
            cursor += consumed
        }
    }

    /// Appends serialized frames to `buffer` until nghttp2 has nothing more or `buffer` holds at
    /// least `limit` bytes (it may overshoot by one frame, at most one DATA frame of 16 KiB plus
    /// header overhead). Stopping at `limit` is the backpressure point: frames not produced stay as
    /// state inside nghttp2 and in the per-stream queues, not as bytes. Returns the bytes appended.
    @discardableResult
    func send(into buffer: inout [UInt8], limit: Int) throws(HTTP2SessionError) -> Int {
        var appended = 0
        while buffer.count < limit {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 { throw HTTP2SessionError(code: Int32(count), operation: "nghttp2_session_mem_send") }
            guard count > 0, let data else { break }
            // `data` is valid until the next nghttp2 call: copy it out now.
            buffer.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
            appended += count
        }
        return appended
    }

    var wantsRead: Bool { nghttp2_session_want_read(session) != 0 }
    var wantsWrite: Bool { nghttp2_session_want_write(session) != 0 }

    // MARK: Submitting

    /// Submits the HEADERS that start a response (server). Without `endStream` a data source is
    /// attached and waits (deferred) for `appendBody`/`finish`.
    func submitResponse(streamID: Int32, status: Int, headers: [HTTP2HeaderField], endStream: Bool) throws(HTTP2SessionError) {
        let stream = try openStream(streamID, "submitResponse")
        guard !stream.headersSubmitted else {
            throw HTTP2SessionError(code: NGHTTP2_ERR_INVALID_STATE.rawValue, operation: "submitResponse: headers already sent")
        }
        headerBlock.reset()
        headerBlock.append(name: ":status", value: String(status))
        headerBlock.append(headers)
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: SessionCallbacks.readBody)
        let rc: Int32 = headerBlock.withNameValues { nva, count in
            if endStream { return nghttp2_submit_response(session, streamID, nva, count, nil) }
            return nghttp2_submit_response(session, streamID, nva, count, &provider)
        }
        try check(rc, "nghttp2_submit_response")
        stream.headersSubmitted = true
        stream.outbound.ended = endStream
    }

    /// Submits a request (client): HEADERS, then `body` (if any), then END_STREAM. Returns the new
    /// stream's id. nghttp2 queues it if the peer's MAX_CONCURRENT_STREAMS is reached.
    func submitRequest(method: String, scheme: String, authority: String, path: String,
                       headers: [HTTP2HeaderField], body: [UInt8]) throws(HTTP2SessionError) -> Int32 {
        headerBlock.reset()
        headerBlock.append(name: ":method", value: method)
        headerBlock.append(name: ":scheme", value: scheme)
        if !authority.isEmpty { headerBlock.append(name: ":authority", value: authority) }
        headerBlock.append(name: ":path", value: path)
        headerBlock.append(headers)
        let stream = StreamState(id: 0)
        stream.outbound.append(body)
        stream.outbound.ended = true
        stream.headersSubmitted = true
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: SessionCallbacks.readBody)
        let id: Int32 = headerBlock.withNameValues { nva, count in
            if body.isEmpty { return nghttp2_submit_request(session, nil, nva, count, nil, nil) }
            return nghttp2_submit_request(session, nil, nva, count, &provider, nil)
        }
        guard id > 0 else { throw HTTP2SessionError(code: id, operation: "nghttp2_submit_request") }
        stream.id = id
        streams[id] = stream
        return id
    }

    /// Queues body bytes on a stream whose HEADERS went out with a data source.
    func appendBody(streamID: Int32, _ bytes: [UInt8], endStream: Bool) throws(HTTP2SessionError) {
        let stream = try writableStream(streamID, "appendBody")
        stream.outbound.append(bytes)
        if endStream { stream.outbound.ended = true }
        resume(stream)
    }

    /// Ends the body with trailers (END_STREAM rides on the trailers' HEADERS frame).
    func finish(streamID: Int32, trailers: [HTTP2HeaderField]) throws(HTTP2SessionError) {
        let stream = try writableStream(streamID, "finish")
        stream.outbound.trailers = trailers.isEmpty ? nil : trailers
        stream.outbound.ended = true
        resume(stream)
    }

    func resetStream(streamID: Int32, errorCode: HTTP2ErrorCode) throws(HTTP2SessionError) {
        try check(nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode.rawValue),
                  "nghttp2_submit_rst_stream")
    }

    /// GOAWAY naming the last stream we processed: streams above it were not and may be retried.
    /// Streams at or below it continue; once they are done nghttp2 stops wanting to read and write.
    func goAway(errorCode: HTTP2ErrorCode) throws(HTTP2SessionError) {
        let last = nghttp2_session_get_last_proc_stream_id(session)
        try check(nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode.rawValue, nil, 0),
                  "nghttp2_submit_goaway")
    }

    /// The number of streams in the stream table (open, or closed by us but not yet by nghttp2).
    var openStreamCount: Int { streams.count }

    /// Incoming RST_STREAMs allowed (server role; see ``HTTP2SessionConfiguration/streamResetLimit``).
    lazy var resetBucket = TokenBucket(burst: Double(configuration.streamResetLimit.burst),
                                       perSecond: Double(configuration.streamResetLimit.perSecond), now: monotonicNow())

    /// Set when a request's header block begins; the owner clears it when it has looked (see
    /// ``oldestIncompleteHead()``), so checking costs nothing on the read path.
    var headsBegun = false

    /// When the oldest header block still incomplete began (monotonic ns), if any. O(streams).
    func oldestIncompleteHead() -> UInt64? {
        var oldest: UInt64?
        for stream in streams.values where !stream.headersDone && !stream.rejected && stream.headStarted != 0 {
            oldest = min(oldest ?? stream.headStarted, stream.headStarted)
        }
        return oldest
    }

    /// GOAWAY with `errorCode` and no more streams: nghttp2 stops reading, sends what is queued
    /// and wants nothing more (the owner then closes).
    func terminate(errorCode: HTTP2ErrorCode) throws(HTTP2SessionError) {
        try check(nghttp2_session_terminate_session(session, errorCode.rawValue), "nghttp2_session_terminate_session")
    }

    // MARK: Helpers

    private func openStream(_ streamID: Int32, _ operation: String) throws(HTTP2SessionError) -> StreamState {
        guard let stream = stream(streamID) else {
            throw HTTP2SessionError(code: NGHTTP2_ERR_STREAM_CLOSED.rawValue, operation: "\(operation): stream \(streamID)")
        }
        return stream
    }

    private func writableStream(_ streamID: Int32, _ operation: String) throws(HTTP2SessionError) -> StreamState {
        let stream = try openStream(streamID, operation)
        guard stream.headersSubmitted, !stream.outbound.ended else {
            throw HTTP2SessionError(code: NGHTTP2_ERR_INVALID_STATE.rawValue,
                                    operation: "\(operation): stream \(streamID) has no open body")
        }
        return stream
    }

    private func resume(_ stream: StreamState) {
        guard stream.outbound.deferred else { return }
        stream.outbound.deferred = false
        // Fails only if the stream is gone, in which case there is nothing to resume.
        _ = nghttp2_session_resume_data(session, stream.id)
    }
}

@inline(__always)
func check(_ rc: Int32, _ operation: String) throws(HTTP2SessionError) {
    if rc < 0 { throw HTTP2SessionError(code: rc, operation: operation) }
}
