internal import CNghttp2
#if canImport(Glibc)
import Glibc
#endif

/// The C callbacks nghttp2 calls, each a thin trampoline into `SessionCore`.
///
/// Thread ownership: these run synchronously inside nghttp2 calls that `SessionCore` makes on its
/// owning thread, so they may touch the core's state without synchronisation. The `user_data`
/// pointer is the unretained `SessionCore` (see its documentation for why that is sound). No
/// callback throws or traps: anything unexpected from the peer becomes an nghttp2 error code
/// (a stream reset or a connection error decided by nghttp2).
enum SessionCallbacks {
    static func install(on callbacks: OpaquePointer?) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, onFrameSent)
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks, onFrameNotSent)
        nghttp2_session_callbacks_set_error_callback2(callbacks, onError)
    }

    /// Runs `body` with the session the callback is for. The session owns the nghttp2 session
    /// that calls back, so it outlives the call: the reference is lent without a retain and a
    /// release around every callback (five or more per request).
    @inline(__always)
    private static func core<R>(_ userData: UnsafeMutableRawPointer?, _ body: (SessionCore) -> R) -> R {
        Unmanaged<SessionCore>.fromOpaque(userData.unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
    }

    static let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
        guard let frame else { return 0 }
        return core(userData) { $0.beginHeaders(frame) }
    }

    static let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
        guard let frame, let name, let value else { return 0 }
        return core(userData) {
            $0.header(frame, UnsafeBufferPointer(start: name, count: nameLength), UnsafeBufferPointer(start: value, count: valueLength))
        }
    }

    static let onFrameReceived: nghttp2_on_frame_recv_callback = { _, frame, userData in
        guard let frame else { return 0 }
        return core(userData) { $0.frameReceived(frame) }
    }

    static let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
        guard let data else { return 0 }
        return core(userData) { $0.dataChunk(streamID, UnsafeBufferPointer(start: data, count: length)) }
    }

    static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
        core(userData) { $0.streamClosed(streamID, HTTP2ErrorCode(rawValue: errorCode)) }
    }

    static let onFrameSent: nghttp2_on_frame_send_callback = { _, frame, userData in
        guard let frame else { return 0 }
        return core(userData) { $0.frameSent(frame) }
    }

    static let onFrameNotSent: nghttp2_on_frame_not_send_callback = { _, frame, errorCode, userData in
        guard let frame else { return 0 }
        return core(userData) { $0.frameNotSent(frame, errorCode) }
    }

    static let onError: nghttp2_error_callback2 = { _, code, message, length, userData in
        if let message {
            let text = String(decoding: UnsafeRawBufferPointer(start: message, count: length), as: UTF8.self)
            core(userData) { $0.logger.debug("nghttp2 (\(code)): \(text)") }
        }
        return 0
    }

    /// The data source of every body we send: copies from the stream's `OutboundBody`.
    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
        guard let buffer, let flags else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        return core(userData) { $0.readBody(streamID, buffer, length, flags) }
    }
}

// MARK: - Callback bodies (owning thread only, see `SessionCallbacks`)

private let frameHeaders = UInt8(NGHTTP2_HEADERS.rawValue)
private let frameData = UInt8(NGHTTP2_DATA.rawValue)
private let frameGoAway = UInt8(NGHTTP2_GOAWAY.rawValue)
private let frameResetStream = UInt8(NGHTTP2_RST_STREAM.rawValue)
private let flagEndStream = UInt8(NGHTTP2_FLAG_END_STREAM.rawValue)

extension SessionCore {
    fileprivate func beginHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        // A server learns of a new stream here; a client created the stream when it submitted the
        // request. Later header blocks on the same stream (trailers, final after 1xx) reuse it.
        if role == .server, frame.pointee.hd.type == frameHeaders, frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST {
            let id = frame.pointee.hd.stream_id
            let stream = StreamState(id: id)
            stream.headStarted = monotonicNow()
            streams[id] = stream
            headsBegun = true
        }
        return 0
    }

    fileprivate func header(_ frame: UnsafePointer<nghttp2_frame>, _ name: UnsafeBufferPointer<UInt8>,
                            _ value: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard let stream = stream(frame.pointee.hd.stream_id), !stream.rejected else { return 0 }
        stream.headerListSize += name.count + value.count + 32
        if stream.headerListSize > Int(configuration.maxHeaderListSize) {
            // Keep decoding (HPACK state must stay in sync) but keep nothing; reject once the
            // header block is complete so that the owner can still answer on the stream.
            stream.headersTooLarge = true
            stream.headers = []
            stream.trailers = []
            return 0
        }
        if stream.headersTooLarge { return 0 }
        if name.first == UInt8(ascii: ":") {
            // nghttp2 has validated pseudo-headers (known names, only in the first block, once each).
            let text = configuration.headerStrings.string(value)
            switch PseudoHeader(name) {
            case .method: stream.method = text
            case .path: stream.path = text
            case .authority: stream.authority = text
            case .scheme: stream.scheme = text
            case .status: stream.status = Int(text) ?? 0
            case .other: break
            }
            return 0
        }
        let field: HTTP2HeaderField = (configuration.headerStrings.string(name), configuration.headerStrings.string(value))
        if stream.headersDone {
            stream.trailers.append(field)
        } else {
            // One allocation for a request's few fields, not one per doubling.
            if stream.headers.capacity == 0 { stream.headers.reserveCapacity(8) }
            stream.headers.append(field)
        }
        return 0
    }

    fileprivate func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let type = frame.pointee.hd.type
        let id = frame.pointee.hd.stream_id
        switch type {
        case frameHeaders:
            guard let stream = stream(id) else { return 0 }
            if !stream.headersDone {
                if role == .client, (100..<200).contains(stream.status) {
                    // An informational response: forget it and wait for the final one.
                    stream.status = 0
                    stream.headers.removeAll()
                    return 0
                }
                stream.headersDone = true
            }
            if stream.headersTooLarge { reject(stream, .headerListTooLarge(limit: Int(configuration.maxHeaderListSize))) }
            if frame.pointee.hd.flags & flagEndStream != 0 { complete(stream) }
        case frameData:
            if frame.pointee.hd.flags & flagEndStream != 0, let stream = stream(id) { complete(stream) }
        case frameGoAway:
            logGoAway(frame, direction: "received")
            events.append(.goAway(lastStreamID: frame.pointee.goaway.last_stream_id,
                                  errorCode: HTTP2ErrorCode(rawValue: frame.pointee.goaway.error_code)))
        case frameResetStream where role == .server:
            // Rapid reset (CVE-2023-44487): past the bucket, GOAWAY ENHANCE_YOUR_CALM, the code
            // RFC 9113 gives for "the peer might be generating excessive load" (nghttp2's own
            // bucket, kept as a backstop at twice the size, would say INTERNAL_ERROR).
            if !resetBucket.take(at: monotonicNow()) {
                _ = nghttp2_session_terminate_session(session, HTTP2ErrorCode.enhanceYourCalm.rawValue)
            }
        default:
            break
        }
        return 0
    }

    fileprivate func dataChunk(_ streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard let stream = stream(streamID), !stream.rejected else { return 0 }
        if stream.body.count + data.count > configuration.maxBodySize {
            reject(stream, .bodyTooLarge(limit: configuration.maxBodySize))
            return 0
        }
        stream.body.append(contentsOf: data)
        return 0
    }

    fileprivate func streamClosed(_ streamID: Int32, _ errorCode: HTTP2ErrorCode) -> Int32 {
        if removeStream(streamID) != nil {
            events.append(.streamClosed(streamID: streamID, errorCode: errorCode))
        }
        return 0
    }

    fileprivate func frameSent(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        if frame.pointee.hd.type == frameGoAway { logGoAway(frame, direction: "sent") }
        // RFC 9113 §8.1: a server that completes its response before the request is complete (a
        // rejection) sends RST_STREAM(NO_ERROR) so that the client stops sending the body.
        let type = frame.pointee.hd.type
        guard role == .server, type == frameHeaders || type == frameData,
              frame.pointee.hd.flags & flagEndStream != 0,
              let stream = stream(frame.pointee.hd.stream_id), !stream.remoteEnded else { return 0 }
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, HTTP2ErrorCode.noError.rawValue)
        return 0
    }

    /// A GOAWAY that ends a connection on an error, with the reason nghttp2 (or the peer) wrote
    /// in its debug data ("too many RST_STREAM", "flooded"…), at warning: every stream still open
    /// on the connection fails with it. NO_ERROR (a shutdown, an idle close) at debug.
    private func logGoAway(_ frame: UnsafePointer<nghttp2_frame>, direction: String) {
        let goAway = frame.pointee.goaway
        let code = HTTP2ErrorCode(rawValue: goAway.error_code)
        let reason = goAway.opaque_data.map { String(decoding: UnsafeBufferPointer(start: $0, count: min(goAway.opaque_data_len, 256)), as: UTF8.self) } ?? ""
        logger.log(code == .noError ? .debug : .warning,
                   "GOAWAY \(direction) (\(code), last stream \(goAway.last_stream_id), \(streams.count) streams open)"
                       + (reason.isEmpty ? "" : ": \(reason)"))
    }

    fileprivate func frameNotSent(_ frame: UnsafePointer<nghttp2_frame>, _ libraryError: Int32) -> Int32 {
        // A request that never left (GOAWAY received, session closing): report the stream as
        // refused, which tells the caller it was not processed and is safe to retry.
        guard role == .client, frame.pointee.hd.type == frameHeaders else { return 0 }
        let id = frame.pointee.hd.stream_id
        if removeStream(id) != nil {
            logger.debug("request on stream \(id) not sent: \(HTTP2SessionError(code: libraryError, operation: "send"))")
            events.append(.streamClosed(streamID: id, errorCode: .refusedStream))
        }
        return 0
    }

    fileprivate func readBody(_ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ capacity: Int,
                              _ flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = stream(streamID) else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = stream.outbound.read(into: buffer, capacity: capacity)
        if stream.outbound.isDrained {
            if !stream.outbound.ended {
                if count > 0 { return count }
                stream.outbound.deferred = true
                return Int(NGHTTP2_ERR_DEFERRED.rawValue)
            }
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            if let trailers = stream.outbound.trailers {
                flags.pointee |= NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
                headerBlock.reset()
                headerBlock.append(trailers)
                let rc = headerBlock.withNameValues { nghttp2_submit_trailer(session, streamID, $0, $1) }
                if rc < 0 { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
            }
        }
        return count
    }

    // MARK: Message completion

    private func reject(_ stream: StreamState, _ reason: HTTP2StreamRejection) {
        guard !stream.rejected, !stream.delivered else { return }
        stream.rejected = true
        // What is known of the request, so that the answer can take the form its client reads.
        let request = HTTP2RejectedRequest(method: stream.method, path: stream.path,
                                           contentType: stream.headers.first { $0.name == "content-type" }?.value)
        stream.headers = []
        stream.trailers = []
        stream.body = []
        events.append(.rejected(streamID: stream.id, reason: reason, request: request))
        if role == .client {
            // Nobody will answer a response: stop the server sending the rest of it.
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, HTTP2ErrorCode.cancel.rawValue)
        }
    }

    private func complete(_ stream: StreamState) {
        stream.remoteEnded = true
        guard !stream.rejected, !stream.delivered else { return }
        stream.delivered = true
        // Move the accumulated parts out: the event owns them, the stream keeps nothing.
        let headers = stream.headers, trailers = stream.trailers, body = stream.body
        stream.headers = []
        stream.trailers = []
        stream.body = []
        switch role {
        case .server:
            events.append(.request(HTTP2Request(streamID: stream.id, method: stream.method, path: stream.path,
                                                authority: stream.authority, scheme: stream.scheme,
                                                headers: headers, body: body, trailers: trailers)))
        case .client:
            events.append(.response(HTTP2Response(streamID: stream.id, status: stream.status, headers: headers,
                                                  body: body, trailers: trailers)))
        }
    }
}

/// The pseudo-header fields we keep, recognised from raw bytes without building a String.
private enum PseudoHeader {
    case method, path, authority, scheme, status, other

    init(_ name: UnsafeBufferPointer<UInt8>) {
        func equals(_ literal: StaticString) -> Bool {
            literal.utf8CodeUnitCount == name.count
                && memcmp(literal.utf8Start, name.baseAddress!, name.count) == 0
        }
        if equals(":method") { self = .method }
        else if equals(":path") { self = .path }
        else if equals(":authority") { self = .authority }
        else if equals(":scheme") { self = .scheme }
        else if equals(":status") { self = .status }
        else { self = .other }
    }
}
