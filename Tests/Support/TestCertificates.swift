import Foundation

/// A private CA and certificates it signs, made with the openssl command in a directory: what a
/// cluster with mutual TLS needs (nodes' server certificates, the coordinator's client one).
public struct TestCertificates {
    public let directory: String
    public var authority: String { directory + "/ca.crt" }

    /// Makes the CA (nil when openssl is missing or fails: the caller skips).
    public init?(directory: String) {
        self.directory = directory
        guard Self.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                            "-subj", "/CN=Typeahead test CA", "-keyout", directory + "/ca.key", "-out", directory + "/ca.crt"]) else { return nil }
    }

    /// A certificate the CA signed for `name`, valid for 127.0.0.1 and localhost: (certificate, key).
    public func issue(_ name: String) -> (certificate: String, key: String)? {
        let base = directory + "/" + name
        let extensions = base + ".ext"
        guard FileManager.default.createFile(atPath: extensions, contents: Data("subjectAltName=IP:127.0.0.1,DNS:localhost\n".utf8)),
              Self.openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=\(name)",
                            "-keyout", base + ".key", "-out", base + ".csr"]),
              Self.openssl(["x509", "-req", "-in", base + ".csr", "-CA", authority, "-CAkey", directory + "/ca.key", "-CAcreateserial",
                            "-days", "1", "-extfile", extensions, "-out", base + ".crt"]) else { return nil }
        return (base + ".crt", base + ".key")
    }

    private static func openssl(_ arguments: [String]) -> Bool {
        guard let run = try? ChildRun.run("/usr/bin/env", ["openssl"] + arguments, timeout: 30) else { return false }
        return run.status == 0
    }
}
