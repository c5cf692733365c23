import Cluster
import Foundation
import Launcher

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
    /// named after `name`.
    public static func start(_ name: String) async throws -> SampleCluster {
        let directory = TemporaryDirectory(name)
        var options = LocalCluster.Options(catalog: catalog, executable: BuiltProducts.typeahead.path)
        options.shards = 2
        options.replicas = 1
        options.listen = Endpoint(host: "127.0.0.1", port: 0)
        options.dataDirectory = directory.path + "/cluster"
        let cluster = LocalCluster(options: options)
        return SampleCluster(cluster: cluster, summary: try await cluster.start(), directory: directory)
    }

    public func stop() {
        cluster.stop()
    }
}
