// swift-tools-version:6.0
//
// Typeahead: a sharded search-and-suggestion cluster.
//
// Layering (each C library is wrapped by one Swift module per use: yajl twice, see below):
//   CLMDB     -> Storage     (LMDB environments, transactions, cursors)
//   CUTF8Proc -> Analysis    (normalisation and word splitting)
//   CYAJL     -> Catalog     (JSON Lines catalog parsing and validation: yajl events straight
//                            into the entry builder, the build's hot loop)
//             -> JSONTree    (request bodies: a bounded tree, limits enforced while parsing,
//                            numbers kept as text)
//   Caching   (bounded striped caches: a generation's term walks, a node's encoded answers)
//   Index     (catalog model, on-disk trie, postings, ranking, suggest/search, generations)
//   Wire      (the API's messages: generated protobuf codec from proto/, gRPC framing and status,
//             the JSON mapping, response encoders, search keys; nothing of the engine)
//   COpenSSL  -> Wire    (libcrypto: the HMAC that signs search keys)
//             -> HTTP2   (libssl: TLS with ALPN on the servers' sockets)
//   WireConversions (Index types <-> wire messages: what a node, a coordinator and the CLI share)
//   CNghttp2, CHTTPParser, CSystem -> HTTP2 (sans-I/O HTTP/2 sessions, epoll event loops, server
//             and client; an HTTP/1.1 fallback on the server for operators' tools)
//   Observability (structured logs, Prometheus metrics; injected, never chosen by libraries)
//   RPC       (gRPC over HTTP2: the server side every server shares, and unary client calls)
//   Node      (a shard of each collection served over RPC: the Typeahead and Shard services over
//             each collection's Shard, routed by the request's collection)
//   Cluster   (the shard assignment and the cluster file with its collections: what every part of a
//             cluster agrees on; collection names follow Wire's CollectionName)
//   Coordinator (per collection: fan-out to the shards, exact merge, presentation, replicas, hedging,
//             deadlines)
//   Launcher  (a whole cluster of processes on loopback: `typeahead local`, and the cluster tests)
//   Admin     (operating a live cluster: zero-downtime reindex, updates, status, generations)
//   Load      (`typeahead load`: keystroke sessions over many HTTP/2 connections, open and closed
//              loop, latency histograms and reports; the latency recorder bench shares)
//   CSQLite   -> Benchmarks  (the SQLite FTS5 peer used by `typeahead bench`)
//   typeahead (the executable: argument parsing only)
import PackageDescription

let package = Package(
    name: "Typeahead",
    products: [
        .executable(name: "typeahead", targets: ["typeahead"]),
        // The client side: a Swift library over the JSON API, Foundation only.
        .library(name: "TypeaheadClient", targets: ["TypeaheadClient"]),
    ],
    targets: [
        .systemLibrary(name: "CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])]),
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        // No pkgConfig: libutf8proc.pc adds -DUTF8PROC_EXPORTS, which SwiftPM refuses; the header is in /usr/include.
        .systemLibrary(name: "CUTF8Proc", providers: [.apt(["libutf8proc-dev"])]),
        // No pkgConfig: Debian's libhttp-parser-dev ships no .pc file; the header is in /usr/include.
        .systemLibrary(name: "CHTTPParser", providers: [.apt(["libhttp-parser-dev"])]),
        .systemLibrary(name: "CYAJL", pkgConfig: "yajl", providers: [.apt(["libyajl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // OpenSSL: libcrypto's HMAC-SHA256 for search keys, libssl's TLS for the servers.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // epoll, accept4, eventfd: Linux calls that Swift's Glibc module does not surface.
        // jemalloc is the processes' allocator: linked here, where every server's modules meet,
        // its malloc replaces glibc's for the whole process (see csystem.h).
        .target(name: "CSystem", linkerSettings: [.linkedLibrary("jemalloc")]),

        .target(name: "Storage", dependencies: ["CLMDB"]),
        .target(name: "Analysis", dependencies: ["CUTF8Proc"]),
        .target(name: "Catalog", dependencies: ["CYAJL", "JSONTree"]),
        .target(name: "Caching"),
        .target(name: "Index", dependencies: ["Storage", "Analysis", "Catalog", "Caching", "CSystem"], exclude: ["Semantics.md"]),
        .target(name: "JSONTree", dependencies: ["CYAJL"]),
        .target(name: "Wire", dependencies: ["JSONTree", "COpenSSL"]),
        .target(name: "WireConversions", dependencies: ["Index", "Catalog", "Storage", "Wire"]),
        .target(name: "HTTP2", dependencies: ["CNghttp2", "CHTTPParser", "CSystem", "COpenSSL"]),
        .target(name: "RPC", dependencies: ["Wire", "JSONTree", "HTTP2", "Observability", "CSystem"]),
        .target(name: "SearchPage", dependencies: ["HTTP2"]),
        .target(name: "Services", dependencies: ["RPC", "Wire"]),
        .target(name: "Node", dependencies: ["Index", "Wire", "WireConversions", "RPC", "Services", "SearchPage", "Catalog", "Observability", "Caching", "CSystem"]),
        .target(name: "Load", dependencies: ["Catalog", "Wire", "HTTP2", "RPC", "Storage"]),
        .target(name: "TypeaheadClient"),
        .target(name: "FuzzTargets", dependencies: ["Catalog", "HTTP2", "Index", "Wire", "WireConversions"]),
        .target(name: "Benchmarks", dependencies: ["Index", "Catalog", "Analysis", "CSQLite", "Load", "WireConversions"]),
        .target(name: "Observability", dependencies: ["CSystem"]),
        .target(name: "Cluster", dependencies: ["HTTP2", "Wire"]),
        .target(name: "Coordinator", dependencies: ["Index", "Wire", "WireConversions", "Cluster", "HTTP2", "RPC", "Services", "SearchPage", "Observability"]),
        .target(name: "Launcher", dependencies: ["Index", "Catalog", "Cluster", "HTTP2", "Storage", "Wire"]),
        .target(name: "Admin", dependencies: ["Index", "Catalog", "Cluster", "Wire", "WireConversions", "RPC", "HTTP2"]),
        .executableTarget(name: "typeahead", dependencies: ["Storage", "Index", "Catalog", "Wire", "WireConversions", "HTTP2", "Node", "RPC", "Cluster", "Coordinator", "Launcher", "Admin", "Benchmarks", "Load"]),

        .testTarget(name: "FuzzTargetTests", dependencies: ["FuzzTargets", "TestSupport"]),
        .testTarget(name: "TypeaheadClientTests", dependencies: ["TypeaheadClient", "Launcher", "Cluster", "TestSupport"]),
        .testTarget(name: "SearchPageTests", dependencies: ["Launcher", "Cluster", "TestSupport"], exclude: ["python", "search-page.png"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "TestSupport"]),
        .testTarget(name: "AnalysisTests", dependencies: ["Analysis"]),
        .testTarget(name: "CatalogTests", dependencies: ["Catalog"]),
        .testTarget(name: "IndexTests", dependencies: ["Index", "Catalog", "Analysis", "Storage", "Caching", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["Wire", "WireConversions", "Index", "TestSupport"]),
        .testTarget(name: "WireTests", dependencies: ["Wire", "WireConversions", "JSONTree", "Index", "Catalog", "Storage"], exclude: ["Fixtures"]),
        .testTarget(name: "HTTP2Tests", dependencies: ["HTTP2"]),
        .testTarget(name: "NodeTests", dependencies: ["Node", "Index", "Wire", "RPC", "Observability", "TestSupport"], exclude: ["python"]),
        .testTarget(name: "ObservabilityTests", dependencies: ["Observability"]),
        .testTarget(name: "CachingTests", dependencies: ["Caching"]),
        .testTarget(name: "ClusterTests", dependencies: ["Cluster"]),
        .testTarget(name: "AdminTests", dependencies: ["Admin", "Launcher", "Load", "Cluster", "Catalog", "RPC", "HTTP2", "Wire", "TestSupport"]),
        .testTarget(name: "RPCTests", dependencies: ["RPC", "HTTP2", "Wire", "Observability"]),
        .testTarget(name: "CoordinatorTests", dependencies: ["Admin", "Coordinator", "Cluster", "Index", "Wire", "Catalog", "TestSupport", "Node", "RPC", "Load",
                                                             "HTTP2", "Observability"], exclude: ["python"]),
        // A cluster of `typeahead` processes in network namespaces (root only; the script does the work).
        .testTarget(name: "ClusterNetworkTests", dependencies: ["TestSupport"], exclude: ["python"]),
        .testTarget(name: "LoadTests", dependencies: ["Load", "RPC", "HTTP2", "Wire", "Catalog", "Observability", "TestSupport"]),
        // deploy/ checked by scripts/check-deploy.py (manifests, units, Containerfile), and the
        // sample cluster files loaded with ClusterFile.
        .testTarget(name: "DeployTests", dependencies: ["Cluster", "TestSupport"]),
        // Random catalogs, keystroke workloads and response diffs shared by the test targets.
        .target(name: "TestSupport", dependencies: ["Index", "Catalog", "Cluster", "Launcher"], path: "Tests/Support"),
    ],
    swiftLanguageModes: [.v6]
)

// Release builds of the server's modules optimise across module boundaries: a keystroke's path
// crosses Storage, Index, Wire and the servers, and generic calls between them (a typed key's
// read, an encoder over hits) are only specialised where the optimiser sees both sides
// (`typeahead bench`, Debian: every keystroke class 12-18% faster at p50 and mean). Not for
// TypeaheadClient, which apps depend on (a dependency may not carry unsafe flags), nor the tests.
let crossModuleOptimized: Set<String> = [
    "Storage", "Analysis", "Catalog", "Caching", "Index", "JSONTree", "Wire", "WireConversions", "HTTP2", "RPC", "Services",
    "Node", "Coordinator", "Benchmarks", "Load", "typeahead",
]
// The request path's loop-confined classes (sessions, connections, streams) are checked for
// exclusive access in debug builds, where every test runs; release builds skip the runtime
// checks there (about 5% of a cached node call's CPU in `perf`: swift_beginAccess and its
// thread-local access set on every property access of a class). The same for the index and its
// storage, whose build passes records through classes (sorters, spill files) a million times:
// the checks were 16% of a build's documents pass (synthetic 1M catalog).
let exclusivityUnchecked: Set<String> = ["HTTP2", "RPC", "Index", "Storage", "Catalog"]
for target in package.targets where exclusivityUnchecked.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
}
for target in package.targets where crossModuleOptimized.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]
}
