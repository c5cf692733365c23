internal import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// TLS for one connection, sans I/O: ciphertext read from the socket goes in (``receive(_:into:)``)
/// and comes out as plaintext; plaintext to send goes in (``send(_:)``) and the records to write,
/// handshake messages included, come out (``drainOutput(into:)``). Two memory BIOs stand between
/// OpenSSL and the socket, so the channel keeps its one read/send funnel, its output cap and its
/// backpressure unchanged.
///
/// Lifetimes: the `SSL` owns both BIOs and holds a reference to its context; `deinit` frees all.
/// Thread ownership: the channel's loop thread only (OpenSSL's error queue is per thread).
final class TLSSession {
    private let ssl: OpaquePointer
    private let input: OpaquePointer
    private let output: OpaquePointer
    private(set) var isHandshakeComplete = false
    /// The peer sent close_notify: nothing more will come.
    private(set) var peerClosed = false
    private var scratch = [UInt8](repeating: 0, count: 16 << 10)

    /// Takes the session `make` creates with its two BIOs (nil: `failure`).
    private init(_ failure: @autoclosure () -> String,
                 _ make: (UnsafeMutablePointer<OpaquePointer?>, UnsafeMutablePointer<OpaquePointer?>) -> OpaquePointer?) throws(HTTP2TLSError) {
        var input: OpaquePointer?
        var output: OpaquePointer?
        guard let ssl = make(&input, &output), let input, let output else { throw HTTP2TLSError(description: failure()) }
        self.ssl = ssl
        self.input = input
        self.output = output
    }

    convenience init(serverContext: OpaquePointer) throws(HTTP2TLSError) {
        try self.init("cannot allocate a TLS session") { copenssl_server_session(serverContext, $0, $1) }
    }

    /// A client session to `host` (a numeric address or a DNS name the certificate must name).
    convenience init(clientContext: OpaquePointer, host: String) throws(HTTP2TLSError) {
        var address = in6_addr()
        let isAddress = inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
        try self.init("cannot set up a TLS session to \(host)") { copenssl_client_session(clientContext, host, isAddress ? 1 : 0, $0, $1) }
    }

    deinit { SSL_free(ssl) }

    /// Moves the handshake on with what has arrived (a client's first call writes its hello).
    /// Throws when it failed (an untrusted certificate, no common protocol version).
    func advanceHandshake() throws(HTTP2TLSError) {
        guard !isHandshakeComplete else { return }
        let result = SSL_do_handshake(ssl)
        guard result == 1 else {
            if isRetry(result) { return }
            throw Self.error("TLS handshake")
        }
        isHandshakeComplete = true
    }

    /// The protocol ALPN settled on (`h2`, `http/1.1`), if any.
    var negotiatedProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Takes ciphertext from the socket, advances the handshake, and appends whatever plaintext it
    /// completes to `plaintext`. Throws on a failed handshake or a corrupt record (the connection
    /// must close).
    func receive(_ bytes: UnsafeRawBufferPointer, into plaintext: inout [UInt8]) throws(HTTP2TLSError) {
        var offset = 0
        while offset < bytes.count {
            // A memory BIO grows to take every byte; it fails only when out of memory.
            let written = BIO_write(input, bytes.baseAddress! + offset, Int32(min(bytes.count - offset, 1 << 30)))
            guard written > 0 else { throw Self.error("buffering TLS input") }
            offset += Int(written)
        }
        try advanceHandshake()
        guard isHandshakeComplete else { return }
        while true {
            let count = scratch.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                plaintext.append(contentsOf: scratch[0..<Int(count)])
                continue
            }
            if isRetry(count) { return }
            if SSL_get_error(ssl, count) == SSL_ERROR_ZERO_RETURN {
                peerClosed = true
                return
            }
            throw Self.error("reading TLS")
        }
    }

    /// Enciphers `plaintext` (after the handshake); its records wait in ``drainOutput(into:)``.
    func send(_ plaintext: [UInt8]) throws(HTTP2TLSError) {
        var offset = 0
        while offset < plaintext.count {
            let count = plaintext.withUnsafeBytes { bytes in
                SSL_write(ssl, bytes.baseAddress! + offset, Int32(min(bytes.count - offset, 1 << 30)))
            }
            guard count > 0 else { throw Self.error("writing TLS") }
            offset += Int(count)
        }
    }

    /// Appends the records waiting to be written to the socket.
    func drainOutput(into buffer: inout [UInt8]) {
        let pending = Int(copenssl_bio_pending(output))
        guard pending > 0 else { return }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: pending))
        let read = buffer.withUnsafeMutableBytes { BIO_read(output, $0.baseAddress! + start, Int32(pending)) }
        buffer.removeLast(pending - max(0, Int(read)))
    }

    /// Whether an OpenSSL result only means "more input first" (the socket will bring it).
    private func isRetry(_ result: Int32) -> Bool {
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE {
            ERR_clear_error()
            return true
        }
        return false
    }

    private static func error(_ doing: String) -> HTTP2TLSError {
        var text = [CChar](repeating: 0, count: 256)
        copenssl_error(&text, text.count)
        return HTTP2TLSError(description: "\(doing): " + openSSLText(text))
    }
}
