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
    /// With it, every client must present a certificate these authorities signed (mutual TLS).
    public let clientCertificateAuthoritiesPath: String?
    private let current: Mutex<ContextReference>

    /// Loads the files; throws (naming OpenSSL's reason) if one is unreadable, not PEM, or the
    /// key does not belong to the certificate.
    public init(certificateChain: String, privateKey: String, clientCertificateAuthorities: String? = nil) throws(HTTP2TLSError) {
        certificateChainPath = certificateChain
        privateKeyPath = privateKey
        clientCertificateAuthoritiesPath = clientCertificateAuthorities
        current = Mutex(try Self.load(certificateChain, privateKey, clientCertificateAuthorities))
    }

    /// Reads the files again (a renewed certificate). On failure the previous context stays.
    public func reload() throws(HTTP2TLSError) {
        let fresh = try Self.load(certificateChainPath, privateKeyPath, clientCertificateAuthoritiesPath)
        current.withLock { $0 = fresh }
    }

    /// A session for one accepted connection.
    func makeSession() throws(HTTP2TLSError) -> TLSSession {
        let context = current.withLock { $0 }
        return try TLSSession(serverContext: context.pointer)
    }

    private static func load(_ certificateChain: String, _ privateKey: String,
                             _ clientAuthorities: String?) throws(HTTP2TLSError) -> ContextReference {
        var error = [CChar](repeating: 0, count: 256)
        guard let pointer = copenssl_server_context(certificateChain, privateKey, &error, error.count) else {
            throw HTTP2TLSError(description: "cannot use \(certificateChain) with \(privateKey): \(openSSLText(error))")
        }
        let context = ContextReference(pointer)
        if let clientAuthorities, copenssl_server_require_client_certificates(pointer, clientAuthorities, &error, error.count) != 1 {
            throw HTTP2TLSError(description: "cannot use \(clientAuthorities) to verify clients: \(openSSLText(error))")
        }
        return context
    }
}

/// OpenSSL's NUL-terminated reason as text.
func openSSLText(_ error: [CChar]) -> String {
    String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The client side of TLS: the authorities a client trusts (and nothing else: a private cluster's
/// own CA), and optionally the certificate it presents to servers that require one (mutual TLS).
/// ALPN offers `h2`; the server's certificate must name the host connected to (an IP address
/// entry for a numeric host, else a DNS name, also sent as SNI).
///
/// ```swift
/// var configuration = HTTP2Client.Configuration()
/// configuration.tls = try HTTP2ClientTLS(certificateAuthorities: "ca.crt", certificateChain: "client.crt", privateKey: "client.key")
/// ```
public final class HTTP2ClientTLS: Sendable {
    private let context: ContextReference

    public init(certificateAuthorities: String, certificateChain: String? = nil, privateKey: String? = nil) throws(HTTP2TLSError) {
        guard (certificateChain == nil) == (privateKey == nil) else {
            throw HTTP2TLSError(description: "a client certificate needs its key (give both or neither)")
        }
        var error = [CChar](repeating: 0, count: 256)
        guard let pointer = copenssl_client_context(certificateAuthorities, certificateChain, privateKey, &error, error.count) else {
            throw HTTP2TLSError(description: "cannot use \(certificateAuthorities)"
                                + (certificateChain.map { " with \($0)" } ?? "") + ": \(openSSLText(error))")
        }
        context = ContextReference(pointer)
    }

    /// A session for one connection to `host`.
    func makeSession(host: String) throws(HTTP2TLSError) -> TLSSession {
        try TLSSession(clientContext: context.pointer, host: host)
    }
}

/// One reference to an `SSL_CTX`, released when the last holder goes (sessions hold their own).
final class ContextReference: @unchecked Sendable {
    // Immutable after init and only passed to OpenSSL calls that are thread-safe on a context.
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { SSL_CTX_free(pointer) }
}
