import HTTP2

extension ClusterFile.Settings {
    /// The TLS a coordinator and `typeahead admin` use to reach the nodes, from
    /// ``nodeCertificateAuthorityFile`` (and, for mutual TLS, ``nodeCertificateFile`` and
    /// ``nodeKeyFile``); nil for cleartext.
    ///
    /// - Throws: ``ClusterFileError`` naming the setting when a file cannot be used.
    public func nodeTLS(file: String = "cluster file") throws(ClusterFileError) -> HTTP2ClientTLS? {
        guard let authorities = nodeCertificateAuthorityFile else { return nil }
        do {
            return try HTTP2ClientTLS(certificateAuthorities: authorities, certificateChain: nodeCertificateFile, privateKey: nodeKeyFile)
        } catch {
            throw ClusterFileError(file: file, path: "settings.nodeCertificateAuthorityFile", problem: "\(error)")
        }
    }
}
