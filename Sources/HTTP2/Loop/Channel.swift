internal import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// The protocol side of a channel: what to do with bytes read and where bytes to write come from.
/// All methods are called on the channel's loop thread.
protocol ChannelHandler: AnyObject {
    /// The nonblocking connect finished (client channels only).
    func channelConnected(_ channel: Channel)
    /// Bytes arrived (valid only during the call). Throwing closes the channel with that error.
    func channelRead(_ channel: Channel, _ bytes: UnsafeRawBufferPointer) throws
    /// Append bytes to send to `buffer` until there are none or `buffer.count >= limit`.
    func channelProduce(_ channel: Channel, into buffer: inout [UInt8], limit: Int) throws
    /// True when the protocol is done (both sides finished); the channel closes once its output is
    /// flushed.
    func channelIsFinished(_ channel: Channel) -> Bool
    /// The channel closed (EOF, error, or `close`); `error` is nil for an orderly close.
    func channelClosed(_ channel: Channel, error: (any Error)?)
}

/// One nonblocking TCP socket on one event loop: reads into the loop's buffer, writes from a
/// bounded output buffer, and applies backpressure.
///
/// Output and backpressure: the handler is asked for bytes only when the previous batch has been
/// written completely, and each batch is capped at `outputLimit` bytes, so the buffer never holds
/// more than `outputLimit` plus one frame. While the kernel refuses more (EAGAIN) nothing new is
/// produced: frames not yet serialized stay inside nghttp2 as stream state and flow-control debt,
/// not as bytes. With `pausesReading`, the channel also stops reading (drops EPOLLIN) while the
/// kernel refuses our output, so a peer that does not read cannot make us process more of its
/// requests and queue more responses; reading resumes once the output has drained. Servers pause,
/// clients do not (a client must always read, or two peers that both pause could deadlock).
/// A handler can also suspend reading itself (``suspendReading(_:)``): an HTTP/1.1 connection
/// does while enough pipelined requests wait for their turn.
///
/// TLS (``tls``) sits between the socket and the handler: bytes read are deciphered before the
/// handler sees them and its output is enciphered, so handlers speak plaintext either way. The
/// output cap then counts the handler's plaintext; handshake records are written before any.
///
/// Thread ownership: loop thread only.
final class Channel: Selectable {
    let loop: EventLoop
    private let fd: FileDescriptor
    private var token: UInt64 = 0
    /// Strong while open; released on close to break the channel ↔ handler cycle.
    var handler: (any ChannelHandler)?
    /// TLS over this socket, when the server has a certificate (set before ``register()``).
    var tls: TLSSession?
    /// The handler's plaintext before it is enciphered, and the socket's after it is deciphered
    /// (kept for their capacity: no allocation per read or write).
    private var plaintextOutput: [UInt8] = []
    private var plaintextInput: [UInt8] = []
    private var output: [UInt8] = []
    private var outputOffset = 0
    let outputLimit: Int
    let pausesReading: Bool
    private var interest: UInt32 = 0
    /// The handler asked not to read for now (see ``suspendReading(_:)``).
    private var readingSuspended = false
    private var connecting: Bool
    /// Inside `flush` (see there).
    private var flushing = false
    /// Queued with the loop by ``flushSoon()``, not flushed since.
    private var flushQueued = false
    private(set) var isClosed = false
    /// Monotonic time of the last byte read or written.
    private(set) var lastActivity: UInt64
    /// The largest amount of unwritten output this channel has held (statistics).
    private(set) var peakPendingOutput = 0
    /// Reads per wakeup before yielding to other channels (level-triggered: the rest is reported
    /// again by the next epoll_wait).
    private static let maxReadsPerWakeup = 4

    init(loop: EventLoop, fd: Int32, outputLimit: Int, pausesReading: Bool, connecting: Bool) {
        self.loop = loop
        self.fd = FileDescriptor(fd)
        self.outputLimit = max(1, outputLimit)
        self.pausesReading = pausesReading
        self.connecting = connecting
        self.lastActivity = monotonicNow()
        output.reserveCapacity(min(self.outputLimit, 64 << 10))
    }

    /// Adds the socket to the loop's epoll set (writable interest while connecting).
    func register() throws(HTTP2SystemError) {
        interest = connecting ? CSYSTEM_EPOLLOUT : CSYSTEM_EPOLLIN
        token = try loop.register(self, fd: fd.raw, events: interest)
    }

    var pendingOutputBytes: Int { output.count - outputOffset }

    func ready(_ events: UInt32) {
        if connecting {
            finishConnect()
            return
        }
        if events & (CSYSTEM_EPOLLERR | CSYSTEM_EPOLLHUP) != 0, isReadingPaused {
            // Reported whatever the mask: the peer reset or hung up while reads were paused.
            // Nothing more can be exchanged (and level-triggered, ignoring it would spin).
            var error: Int32 = 0
            _ = csystem_socket_error(fd.raw, &error)
            close(error: error == 0 ? nil : HTTP2SystemError(code: error, function: "socket"))
            return
        }
        if events & (CSYSTEM_EPOLLIN | CSYSTEM_EPOLLERR | CSYSTEM_EPOLLHUP) != 0 { readAvailable() }
        if !isClosed, events & CSYSTEM_EPOLLOUT != 0 { flush() }
    }

    private func finishConnect() {
        var error: Int32 = 0
        if csystem_socket_error(fd.raw, &error) != 0 { error = errno }
        if error != 0 {
            close(error: HTTP2SystemError(code: error, function: "connect"))
            return
        }
        connecting = false
        lastActivity = monotonicNow()
        handler?.channelConnected(self)
        flush()
    }

    private func readAvailable() {
        let buffer = loop.readBuffer
        for _ in 0..<Self.maxReadsPerWakeup {
            guard !isClosed, interest & CSYSTEM_EPOLLIN != 0 else { return }
            let result: IOResult<Int>
            do {
                result = try SystemCall.run("read") { read(fd.raw, buffer.baseAddress, buffer.count) }
            } catch {
                close(error: error)
                return
            }
            guard case .done(let count) = result else { break }
            if count == 0 {
                // EOF. HTTP/2 peers do not half-close, so there is nobody left to answer. An
                // HTTP/1.1 client may half-close after its request, but it does not in practice
                // (curl, Prometheus, probes), and a server cannot tell that from a client that
                // left: like nginx's default, treat it as leaving (the request in flight is
                // cancelled).
                close(error: nil)
                return
            }
            lastActivity = monotonicNow()
            do {
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                if let tls {
                    // Taken out while the handler reads it (the handler may call back into the channel).
                    var plaintext = plaintextInput
                    plaintextInput = []
                    plaintext.removeAll(keepingCapacity: true)
                    defer { plaintextInput = plaintext }
                    try tls.receive(bytes, into: &plaintext)
                    if !plaintext.isEmpty { try plaintext.withUnsafeBytes { try handler?.channelRead(self, $0) } }
                    if tls.peerClosed {
                        // close_notify: like EOF (see above), after writing what is pending.
                        flush()
                        close(error: nil)
                        return
                    }
                } else {
                    try handler?.channelRead(self, bytes)
                }
            } catch {
                close(error: error)
                return
            }
            if count < buffer.count { break }
        }
        flush()
    }

    /// Flushes at the end of the loop's iteration (``EventLoop/flushSoon(_:)``): for output
    /// produced outside this channel's own read. Loop thread only.
    func flushSoon() {
        guard !flushQueued, !isClosed else { return }
        flushQueued = true
        loop.flushSoon(self)
    }

    /// The loop's end-of-iteration flush (a no-op if the channel flushed meanwhile).
    func flushIfPending() {
        guard flushQueued else { return }
        flush()
    }

    /// Writes what is pending, then asks the handler for more, until the kernel would block or the
    /// handler has nothing; then closes if the protocol is finished, else updates the epoll mask.
    ///
    /// Not reentrant, and need not be: producing can run completions (a request that was never
    /// sent fails), which may submit another request on this same connection and flush. That
    /// inner call returns at once; the outer loop asks the handler again and sends the new frames.
    func flush() {
        flushQueued = false
        guard !isClosed, !connecting, !flushing else { return }
        flushing = true
        defer { flushing = false }
        while true {
            if outputOffset == output.count {
                output.removeAll(keepingCapacity: true)
                outputOffset = 0
                do {
                    if let tls {
                        try produceEnciphered(tls)
                    } else {
                        try handler?.channelProduce(self, into: &output, limit: outputLimit)
                    }
                } catch {
                    close(error: error)
                    return
                }
                if output.isEmpty { break }
                peakPendingOutput = max(peakPendingOutput, output.count)
            }
            let result: IOResult<Int>
            do {
                result = try output.withUnsafeBytes { bytes throws(HTTP2SystemError) in
                    try SystemCall.run("send") {
                        csystem_send(fd.raw, bytes.baseAddress! + outputOffset, bytes.count - outputOffset)
                    }
                }
            } catch {
                close(error: error)
                return
            }
            guard case .done(let written) = result else { break }
            outputOffset += written
            lastActivity = monotonicNow()
        }
        if pendingOutputBytes == 0, handler?.channelIsFinished(self) ?? true {
            close(error: nil)
            return
        }
        updateInterest()
    }

    /// TLS records first (the handshake's, or what the last batch left), then, once the handshake
    /// is done, the handler's next batch enciphered.
    private func produceEnciphered(_ tls: TLSSession) throws {
        try tls.advanceHandshake()  // a client speaks first: its hello goes out on connect
        tls.drainOutput(into: &output)
        guard output.isEmpty, tls.isHandshakeComplete else { return }
        var plaintext = plaintextOutput
        plaintextOutput = []
        defer {
            plaintext.removeAll(keepingCapacity: true)
            plaintextOutput = plaintext
        }
        try handler?.channelProduce(self, into: &plaintext, limit: outputLimit)
        guard !plaintext.isEmpty else { return }
        try tls.send(plaintext)
        tls.drainOutput(into: &output)
    }

    /// Stops (or resumes) reading whatever the output, until told otherwise: for a handler that
    /// has enough input waiting to be processed. The peer's close is then noticed only when reading
    /// resumes (or as EPOLLHUP after a reset).
    func suspendReading(_ suspended: Bool) {
        guard suspended != readingSuspended, !isClosed else { return }
        readingSuspended = suspended
        if !flushing { updateInterest() }  // a flush in progress updates the mask when it ends
    }

    /// Sends FIN after the output written so far and goes on reading: the lingering close of
    /// HTTP/1.1 (RFC 9112 §9.6). Closing a socket with unread input makes the kernel send RST,
    /// which can destroy a response the client has not read yet (a 413 while it still sends its
    /// body); half-closing lets the client read everything and close first. Call once the output
    /// has been written (``pendingOutputBytes`` is 0): the kernel sends what it has, then FIN.
    func shutdownOutput() {
        guard !isClosed else { return }
        // ENOTCONN (the peer reset meanwhile) is the only failure, and then EOF or EPOLLHUP follows.
        _ = try? SystemCall.run("shutdown") { Glibc.shutdown(fd.raw, Int32(SHUT_WR)) }
    }

    private func updateInterest() {
        let pending = pendingOutputBytes
        var wanted: UInt32 = 0
        if !readingSuspended, !pausesReading || pending == 0 { wanted |= CSYSTEM_EPOLLIN }
        if pending > 0 { wanted |= CSYSTEM_EPOLLOUT }
        guard wanted != interest else { return }
        do {
            try loop.reregister(token: token, fd: fd.raw, events: wanted)
            interest = wanted
        } catch {
            close(error: error)
        }
    }

    var isReadingPaused: Bool { interest & CSYSTEM_EPOLLIN == 0 }

    func loopIsExiting() { close(error: HTTP2SystemError(code: ECANCELED, function: "event loop shut down")) }

    /// Closes the socket now (unflushed output is dropped) and tells the handler once.
    func close(error: (any Error)?) {
        guard !isClosed else { return }
        isClosed = true
        if token != 0 { loop.deregister(token: token, fd: fd.raw) }
        fd.close()
        output = []
        let handler = self.handler
        self.handler = nil
        handler?.channelClosed(self, error: error)
    }
}
