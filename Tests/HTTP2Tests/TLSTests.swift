import Foundation
import HTTP2
import XCTest

/// HTTPS on the server: real clients (curl, nghttp) over TLS with ALPN, bodies of many records,
/// a certificate reloaded without a restart, and clients that do not speak TLS. Certificates are
/// made per test with the openssl command (skipped without it).
final class TLSTests: ResourceCheckingTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        super.tearDown()
    }

    /// A self-signed certificate for 127.0.0.1 and localhost, as `name`.crt and `name`.key.
    func certificate(_ name: String) throws -> (certificate: String, key: String) {
        let certificate = directory.appendingPathComponent(name + ".crt").path, key = directory.appendingPathComponent(name + ".key").path
        guard let made = try runTool("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                                 "-days", "1", "-subj", "/CN=\(name)", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                                                 "-keyout", key, "-out", certificate]) else {
            throw XCTSkip("openssl is not installed")
        }
        XCTAssertEqual(made.status, 0, made.error)
        return (certificate, key)
    }

    func curl(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        guard let result = try runTool("curl", ["--silent", "--show-error", "--max-time", "10"] + arguments) else {
            throw XCTSkip("curl is not installed")
        }
        return result
    }

    func testCurlNegotiatesHTTP2OrHTTP1OverTLS() throws {
        let files = try certificate("server")
        let tls = try HTTP2TLSContext(certificateChain: files.certificate, privateKey: files.key)
        let server = try TestServer({ $0.tls = tls }, handler: echoHandler)
        defer { server.stop() }
        let base = "https://127.0.0.1:\(server.port)"
        let h2 = try curl(["--cacert", files.certificate, "--http2", "--write-out", "\\n%{http_version} %{response_code}",
                           "-H", "x-size: 5", "\(base)/a"])
        XCTAssertEqual(h2.status, 0, h2.error)
        XCTAssertEqual(h2.output, "xxxxx\n2 200", "ALPN chose h2")
        let h1 = try curl(["--cacert", files.certificate, "--http1.1", "--write-out", "\\n%{http_version} %{response_code}",
                           "-H", "x-size: 5", "\(base)/b"])
        XCTAssertEqual(h1.status, 0, h1.error)
        XCTAssertEqual(h1.output, "xxxxx\n1.1 200", "ALPN chose http/1.1")

        // Bodies of many TLS records both ways: 300 kB up (reversed by the handler), 1 MB down.
        let body = directory.appendingPathComponent("body").path
        let sent = (0..<300_000).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        try Data(sent).write(to: URL(fileURLWithPath: body))
        for version in ["--http2", "--http1.1"] {
            let echoed = try curl(["--cacert", files.certificate, version, "--data-binary", "@\(body)", "\(base)/echo"])
            XCTAssertEqual(echoed.status, 0, echoed.error)
            XCTAssertEqual(Array(echoed.output.utf8), sent.reversed(), version)
            let large = try curl(["--cacert", files.certificate, version, "-H", "x-size: 1000000", "--write-out", "%{size_download}",
                                  "-o", "/dev/null", "\(base)/large"])
            XCTAssertEqual(large.output, "1000000", version + " " + large.error)
        }
        // Many streams on one TLS connection.
        if let many = try runTool("nghttp", ["-n", "-t", "10", "-m", "50", "-H", "x-size: 3000", "\(base)/m"]) {
            XCTAssertEqual(many.status, 0, many.error)
        }
    }

    func testClientsThatDoNotSpeakTLSAreClosedAndOthersServed() throws {
        let files = try certificate("server")
        let server = try TestServer({ $0.tls = try? HTTP2TLSContext(certificateChain: files.certificate, privateKey: files.key) },
                                    handler: echoHandler)
        defer { server.stop() }
        // Cleartext HTTP/2 and HTTP/1.1 at a TLS port: a failed handshake, never an answer.
        let plain = try curl(["--http2-prior-knowledge", "http://127.0.0.1:\(server.port)/x"])
        XCTAssertNotEqual(plain.status, 0)
        let plainOne = try curl(["http://127.0.0.1:\(server.port)/x"])
        XCTAssertNotEqual(plainOne.status, 0)
        // A client that does not trust the certificate gives up; the server serves the next one.
        let untrusted = try curl(["https://127.0.0.1:\(server.port)/x"])
        XCTAssertNotEqual(untrusted.status, 0, "curl verifies by default")
        let trusted = try curl(["--cacert", files.certificate, "-H", "x-size: 2", "https://127.0.0.1:\(server.port)/x"])
        XCTAssertEqual(trusted.output, "xx", trusted.error)
    }

    func testAReloadServesTheNewCertificateToNewConnections() throws {
        let first = try certificate("first")
        let second = try certificate("second")
        let served = (directory.appendingPathComponent("served.crt").path, directory.appendingPathComponent("served.key").path)
        try FileManager.default.copyItem(atPath: first.certificate, toPath: served.0)
        try FileManager.default.copyItem(atPath: first.key, toPath: served.1)
        let tls = try HTTP2TLSContext(certificateChain: served.0, privateKey: served.1)
        let server = try TestServer({ $0.tls = tls }, handler: echoHandler)
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)/r"
        XCTAssertEqual(try curl(["--cacert", first.certificate, "-H", "x-size: 1", url]).output, "x")
        // A half-written renewal (a key that is not the certificate's) is refused; the old one stays.
        try FileManager.default.removeItem(atPath: served.0)
        try FileManager.default.copyItem(atPath: second.certificate, toPath: served.0)
        XCTAssertThrowsError(try tls.reload()) { XCTAssertTrue("\($0)".contains("served.crt"), "\($0)") }
        XCTAssertEqual(try curl(["--cacert", first.certificate, "-H", "x-size: 1", url]).output, "x")
        try FileManager.default.removeItem(atPath: served.1)
        try FileManager.default.copyItem(atPath: second.key, toPath: served.1)
        try tls.reload()
        XCTAssertEqual(try curl(["--cacert", second.certificate, "-H", "x-size: 1", url]).output, "x")
        XCTAssertNotEqual(try curl(["--cacert", first.certificate, url]).status, 0, "the old certificate is no longer served")
    }

    func testUnusableFilesAreRefusedWithTheReason() throws {
        let files = try certificate("server")
        let other = try certificate("other")
        XCTAssertThrowsError(try HTTP2TLSContext(certificateChain: files.certificate, privateKey: other.key)) {
            XCTAssertTrue("\($0)".contains("server.crt"), "\($0)")
        }
        XCTAssertThrowsError(try HTTP2TLSContext(certificateChain: directory.appendingPathComponent("missing").path, privateKey: files.key))
        XCTAssertThrowsError(try HTTP2TLSContext(certificateChain: files.key, privateKey: files.key), "a key is not a certificate")
    }
}
