import HTTP2
import Synchronization
import Wire

/// `grpc.health.v1.Health`: Check answers at once; Watch streams the status now and at every
/// change (here: when shutdown begins) until the caller goes away or the server stops.
///
/// SERVING means the server is ready (its readiness test holds) and not shutting down; the
/// service names it knows are `""` (the whole server) and the gRPC services it serves.
final class HealthService: Sendable {
    private let isReady: @Sendable () -> Bool
    private let services: Set<String>
    private let shuttingDown = Atomic<Bool>(false)
    private let watchers = Mutex<[HTTP2Responder]>([])

    init(services: Set<String>, isReady: @escaping @Sendable () -> Bool) {
        self.services = services.union([""])
        self.isReady = isReady
    }

    var isShuttingDown: Bool { shuttingDown.load(ordering: .relaxed) }

    var status: Grpc_Health_V1_HealthCheckResponse.ServingStatus {
        !isShuttingDown && isReady() ? .serving : .notServing
    }

    func handle(_ request: HTTP2Request, path: String, responder: HTTP2Responder,
                finish: @escaping @Sendable (String, GRPCStatus, [UInt8]?) -> Void) {
        let message: Grpc_Health_V1_HealthCheckRequest
        do {
            let frames = try GRPCFraming.messages(in: request.body, maximumMessageBytes: 1 << 16)
            guard frames.count <= 1 else { throw GRPCStatus(.invalidArgument, "one HealthCheckRequest expected") }
            message = try frames.first.map { try RPCMethod.decode(Grpc_Health_V1_HealthCheckRequest.self, $0) } ?? .init()
        } catch {
            finish(path, GRPCStatus(describing: error), nil)
            return
        }
        let known = services.contains(message.service)
        if path == Grpc_Health_V1_HealthService.check.path {
            guard known else {
                finish(path, GRPCStatus(.notFound, "unknown service \"\(message.service)\""), nil)
                return
            }
            finish(path, .ok, Grpc_Health_V1_HealthCheckResponse(status: status).serializedBytes())
            return
        }
        // Watch: a server stream that stays open.
        let first = Grpc_Health_V1_HealthCheckResponse(status: known ? status : .serviceUnknown)
        responder.sendHeaders(status: 200, headers: GRPCResponses.headers)
        responder.sendBody(GRPCFraming.frame(first.serializedBytes()))
        guard known else { return }
        watchers.withLock { $0.append(responder) }
        responder.onCancel { [weak self] in
            self?.watchers.withLock { list in list.removeAll { $0 === responder } }
        }
    }

    /// Tells every watcher NOT_SERVING and ends their streams.
    func beginShutdown() {
        shuttingDown.store(true, ordering: .relaxed)
        let current = watchers.withLock { list -> [HTTP2Responder] in
            defer { list.removeAll() }
            return list
        }
        let message = GRPCFraming.frame(Grpc_Health_V1_HealthCheckResponse(status: .notServing).serializedBytes())
        for responder in current {
            responder.sendBody(message)
            responder.finish(trailers: GRPCResponses.trailers(.ok))
        }
    }
}
