import Cluster
import Foundation
import Launcher
import XCTest

/// The bundled sample catalog as a real local cluster (a coordinator over two shards, one replica
/// each, every part its own process) on ephemeral loopback ports: what the client-side tests
/// (the Swift client, the browser page) talk to. Stopped and removed by `stop()`.
///
/// ```swift
/// let sample = try await SampleCluster.start("typeahead-page")
/// defer { sample.stop() }
/// let url = "http://\(sample.summary.coordinator.host):\(sample.summary.coordinator.port)"
/// ```
public final class SampleCluster: @unchecked Sendable {
    public static let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/catalog/sample.jsonl").path

    public let cluster: LocalCluster
    public let summary: LocalCluster.Summary
    public let directory: TemporaryDirectory

    private init(cluster: LocalCluster, summary: LocalCluster.Summary, directory: TemporaryDirectory) {
        self.cluster = cluster
        self.summary = summary
        self.directory = directory
    }

    /// Starts the cluster with the built `typeahead` binary, its data under a temporary directory
    /// named after `name`. `scoped`: as `typeahead local` with no catalog, the sample as the
    /// collections products (the default) and departments with the scope `all`
    /// (``Launcher/SampleCollections``); else the sample as the one collection `default`.
    /// `filterable`: attribute keys declared filterable, by collection name (the unscoped
    /// sample's collection is "default").
    public static func start(_ name: String, scoped: Bool = false, filterable: [String: [String]] = [:]) async throws -> SampleCluster {
        let directory = TemporaryDirectory(name)
        var options = scoped ? .sample(catalog: catalog, executable: BuiltProducts.typeahead.path)
            : LocalCluster.Options(catalog: catalog, executable: BuiltProducts.typeahead.path)
        options.shards = 2
        options.replicas = 1
        options.filterable = filterable
        options.listen = Endpoint(host: "127.0.0.1", port: 0)
        options.dataDirectory = directory.path + "/cluster"
        let cluster = LocalCluster(options: options)
        return SampleCluster(cluster: cluster, summary: try await cluster.start(), directory: directory)
    }

    public func stop() {
        cluster.stop()
    }

    /// The coordinator's `http://` address, for a client.
    public var baseURL: URL { URL(string: "http://\(summary.coordinator.host):\(summary.coordinator.port)")! }

    /// Skips the calling test unless the `typeahead` binary the cluster runs is built.
    public static func skipUnlessBuilt() throws {
        guard FileManager.default.isExecutableFile(atPath: BuiltProducts.typeahead.path) else {
            throw XCTSkip("typeahead binary not built next to the tests")
        }
    }
}
