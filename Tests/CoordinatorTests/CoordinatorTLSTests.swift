import Catalog
import Admin
import Load
import Cluster
import Foundation
import HTTP2
import RPC
import TestSupport
import Wire
import XCTest

/// A cluster whose nodes serve HTTPS and require client certificates (mutual TLS): the coordinator
/// reaches them with the cluster file's CA and certificate and answers as over cleartext; a client
/// without a certificate, or trusting another CA, is refused by the nodes.
final class CoordinatorTLSTests: XCTestCase {
    func testACoordinatorReachesMutualTLSNodesAndOthersAreRefused() async throws {
        let directory = TemporaryDirectory("typeahead-mtls")
        guard let certificates = TestCertificates(directory: directory.path), let node = certificates.issue("node"),
              let coordinator = certificates.issue("coordinator") else { throw XCTSkip("openssl could not make certificates") }
        let tls = try HTTP2TLSContext(certificateChain: node.certificate, privateKey: node.key,
                                      clientCertificateAuthorities: certificates.authority)
        var settings = TestCluster.settings()
        settings.nodeCertificateAuthorityFile = certificates.authority
        settings.nodeCertificateFile = coordinator.certificate
        settings.nodeKeyFile = coordinator.key
        let (entries, _) = CoordinatorServerTests.catalog(200, seed: 0x7175)
        let cluster = try TestCluster(entries: entries, shards: 2, replicas: 1, settings: settings, nodeTLS: tls)
        defer { cluster.shutdown() }
        let plain = try TestCluster(entries: entries, shards: 2, replicas: 1)
        defer { plain.shutdown() }
        for text in ["st", "stab", "red ", "caf"] {
            let secure = try await cluster.suggest(Typeahead_V1_SuggestRequest(text: text))
            let expected = try await plain.suggest(Typeahead_V1_SuggestRequest(text: text))
            XCTAssertEqual(CoordinatorServerTests.withoutShards(secure), CoordinatorServerTests.withoutShards(expected), text)
            XCTAssertEqual(secure.shards?.failed, 0, text)
        }

        // Straight to a node: with the coordinator's certificate it answers; without one, or
        // trusting nothing but another CA, the handshake fails.
        let port = cluster.ports[0][0]
        func suggest(_ tls: HTTP2ClientTLS) async -> Bool {
            var configuration = HTTP2Client.Configuration()
            configuration.tls = tls
            guard let client = try? HTTP2Client(configuration: configuration) else { return false }
            defer { client.shutdown() }
            do {
                let connection = try await client.connect(host: "127.0.0.1", port: port)
                _ = try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "st"), on: connection,
                                              options: .init(timeout: .seconds(5)))
                return true
            } catch {
                return false
            }
        }
        let withCertificate = try HTTP2ClientTLS(certificateAuthorities: certificates.authority,
                                                 certificateChain: coordinator.certificate, privateKey: coordinator.key)
        let acceptedWithCertificate = await suggest(withCertificate)
        XCTAssertTrue(acceptedWithCertificate)
        let acceptedWithout = await suggest(try HTTP2ClientTLS(certificateAuthorities: certificates.authority))
        XCTAssertFalse(acceptedWithout, "a client without a certificate is refused")
        let other = TemporaryDirectory("typeahead-mtls-other")
        guard let stranger = TestCertificates(directory: other.path) else { throw XCTSkip("openssl could not make a CA") }
        let acceptedByStranger = await suggest(try HTTP2ClientTLS(certificateAuthorities: stranger.authority,
                                                                  certificateChain: coordinator.certificate, privateKey: coordinator.key))
        XCTAssertFalse(acceptedByStranger, "a client that does not trust the nodes' CA gives up")
        // `typeahead admin --cluster` reaches the replicas with the same settings.
        let file = ClusterFile(name: "tls", shards: [ClusterFile.Shard(name: "shard-0", replicas: [Endpoint(host: "127.0.0.1", port: port)])],
                               settings: settings)
        let admin = try await AdminClient.connect(to: .cluster(file), token: TestCluster.adminToken)
        defer { admin.close() }
        let stats = try await admin.call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(), on: file.replicas[0])
        XCTAssertGreaterThan(stats.entries, 0)
        // A misconfigured cluster file: a certificate without its key.
        let broken = #"{"shards":[{"name":"s","replicas":["127.0.0.1:1"]}],"settings":{"nodeCertificateAuthorityFile":"ca.crt","nodeCertificateFile":"c.crt"}}"#
        XCTAssertThrowsError(try ClusterFile.parse(Array(broken.utf8))) { XCTAssertTrue("\($0)".contains("nodeKeyFile"), "\($0)") }
    }

    /// The tools reach a coordinator that serves HTTPS: `typeahead admin --coordinator --tls-ca`
    /// (and through it the mutual-TLS replicas it lists, with the same client certificate) and
    /// `typeahead load --tls-ca`; without the CA the handshake fails and they say so.
    func testAdminAndLoadReachATLSCoordinator() async throws {
        let directory = TemporaryDirectory("typeahead-tls-tools")
        guard let certificates = TestCertificates(directory: directory.path), let node = certificates.issue("node"),
              let coordinator = certificates.issue("coordinator"), let server = certificates.issue("front") else {
            throw XCTSkip("openssl could not make certificates")
        }
        var settings = TestCluster.settings()
        settings.nodeCertificateAuthorityFile = certificates.authority
        settings.nodeCertificateFile = coordinator.certificate
        settings.nodeKeyFile = coordinator.key
        let (entries, _) = CoordinatorServerTests.catalog(200, seed: 0x7176)
        let cluster = try TestCluster(entries: entries, shards: 2, replicas: 1, settings: settings,
                                      nodeTLS: try HTTP2TLSContext(certificateChain: node.certificate, privateKey: node.key,
                                                                   clientCertificateAuthorities: certificates.authority),
                                      coordinatorTLS: try HTTP2TLSContext(certificateChain: server.certificate, privateKey: server.key))
        defer { cluster.shutdown() }
        let endpoint = Endpoint(host: "127.0.0.1", port: cluster.coordinatorPort)

        let tls = try HTTP2ClientTLS(certificateAuthorities: certificates.authority, certificateChain: coordinator.certificate,
                                     privateKey: coordinator.key)
        let admin = try await AdminClient.connect(to: .coordinator(endpoint), token: TestCluster.adminToken, tls: tls)
        let report = await Operations.status(admin)
        admin.close()
        XCTAssertEqual(report.replicas.count, 2)
        XCTAssertTrue(report.replicas.allSatisfy { $0.stats != nil }, "every replica answered over mutual TLS: \(report.replicas.map(\.error))")
        XCTAssertTrue(report.coordinators.allSatisfy { $0.1 != nil }, "the coordinator answered over TLS")

        do {
            let cleartext = try await AdminClient.connect(to: .coordinator(endpoint), token: TestCluster.adminToken)
            cleartext.close()
            XCTFail("a cleartext admin reached a TLS coordinator")
        } catch {
            XCTAssertTrue("\(error)".contains("coordinator 127.0.0.1:\(cluster.coordinatorPort)"), "\(error)")
        }

        var load = LoadConfiguration(host: "127.0.0.1", port: cluster.coordinatorPort, mode: .closedLoop(streamsPerConnection: 2))
        load.duration = .milliseconds(500)
        load.connections = 1
        load.threads = 1
        load.seed = 7
        load.preflight = false
        load.tls = .init(certificateAuthorities: certificates.authority)
        let loaded = try await LoadGenerator(configuration: load, source: TextSource(entries: entries)).run()
        XCTAssertGreaterThan(loaded.requests.answered, 0)
        XCTAssertEqual(loaded.requests.failed, 0, "every request answered over TLS")
    }
}
