internal import COpenSSL
import Synchronization

/// Why TLS could not be set up or went wrong: OpenSSL's reason, with what was being done.
public struct HTTP2TLSError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// The server side of TLS: a certificate chain and its private key (PEM files), loaded into one
/// OpenSSL context from which every accepted connection's session is made. TLS 1.2 or newer; ALPN
/// offers `h2`, then `http/1.1` (the connection's first bytes still decide, as on cleartext: a
/// client that negotiated `h2` sends the HTTP/2 preface).
///
/// ```swift
/// let tls = try HTTP2TLSContext(certificateChain: "/etc/typeahead/tls.crt", privateKey: "/etc/typeahead/tls.key")
/// configuration.tls = tls            // HTTP2Server.Configuration
/// // on SIGHUP:
/// try tls.reload()                   // new connections get the new certificate
/// ```
///
/// Thread safety: sessions are made on every loop thread; a reload swaps the context under a lock,
/// and OpenSSL's reference count keeps the old one alive for the sessions made from it.
public final class HTTP2TLSContext: Sendable {
    public let certificateChainPath: String
    public let privateKeyPath: String
    private let current: Mutex<ContextReference>

    /// Loads the files; throws (naming OpenSSL's reason) if either is unreadable, not PEM, or the
    /// key does not belong to the certificate.
    public init(certificateChain: String, privateKey: String) throws(HTTP2TLSError) {
        certificateChainPath = certificateChain
        privateKeyPath = privateKey
        current = Mutex(try Self.load(certificateChain, privateKey))
    }

    /// Reads the files again (a renewed certificate). On failure the previous context stays.
    public func reload() throws(HTTP2TLSError) {
        let fresh = try Self.load(certificateChainPath, privateKeyPath)
        current.withLock { $0 = fresh }
    }

    /// A session for one accepted connection.
    func makeSession() throws(HTTP2TLSError) -> TLSSession {
        let context = current.withLock { $0 }
        return try TLSSession(serverContext: context.pointer)
    }

    private static func load(_ certificateChain: String, _ privateKey: String) throws(HTTP2TLSError) -> ContextReference {
        var error = [CChar](repeating: 0, count: 256)
        guard let pointer = copenssl_server_context(certificateChain, privateKey, &error, error.count) else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw HTTP2TLSError(description: "cannot use \(certificateChain) with \(privateKey): \(reason)")
        }
        return ContextReference(pointer)
    }
}

/// One reference to an `SSL_CTX`, released when the last holder goes (sessions hold their own).
final class ContextReference: @unchecked Sendable {
    // Immutable after init and only passed to OpenSSL calls that are thread-safe on a context.
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { SSL_CTX_free(pointer) }
}
