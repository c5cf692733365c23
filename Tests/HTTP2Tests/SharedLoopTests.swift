import Foundation
import HTTP2
import Synchronization
import XCTest

/// A server and a client on one `HTTP2EventLoopGroup`: the coordinator's shape, where a request
/// received on a loop is fanned out, answered and timed on that same thread.
final class SharedLoopTests: ResourceCheckingTestCase {
    func testRequestsFanOutAndAreAnsweredOnTheLoopThatReceivedThem() async throws {
        let backend = try TestServer(handler: echoHandler)
        defer { backend.stop() }
        let group = try HTTP2EventLoopGroup(threadCount: 2)
        defer { group.shutdown() }
        let backends = try HTTP2Client(eventLoops: group)
        defer { backends.shutdown() }
        // One backend connection per loop, each owned by its loop.
        var connections: [HTTP2ClientConnection] = []
        for loop in group.loops {
            let connection = try await backends.connect(host: "127.0.0.1", port: backend.port, on: loop)
            XCTAssertEqual(connection.eventLoop, loop)
            connections.append(connection)
        }
        let pool = connections
        let handledOn = Mutex<Set<Int>>([])

        var configuration = HTTP2Server.Configuration()
        configuration.threadCount = 7  // ignored: the shared group decides
        let front = HTTP2Server(configuration: configuration, eventLoops: group) { request, responder in
            let loop = responder.eventLoop
            guard loop.inEventLoop else { return responder.respond(status: 500, body: bytes("handler off its loop")) }
            handledOn.withLock { _ = $0.insert(loop.index) }
            let connection = pool[loop.index]
            connection.send(HTTP2ClientRequest(method: "POST", path: "/backend", body: request.body)) { result in
                // The completion runs on the loop of the request, so the answer is written inline.
                guard loop.inEventLoop else { return responder.respond(status: 500, body: bytes("completion off the loop")) }
                switch result {
                case .success(let answer):
                    responder.respond(status: 200, headers: [("x-loop", "\(loop.index)")], body: answer.body)
                case .failure(let error):
                    responder.respond(status: 502, body: bytes("\(error)"))
                }
            }
        }
        let port = try front.start()
        defer { front.shutdown() }
        XCTAssertTrue(front.eventLoops === group)

        var clientConfiguration = HTTP2Client.Configuration()
        clientConfiguration.threadCount = 2
        let outside = try HTTP2Client(configuration: clientConfiguration)
        defer { outside.shutdown() }
        var callers: [HTTP2ClientConnection] = []
        for _ in 0..<4 { callers.append(try await outside.connect(host: "127.0.0.1", port: port)) }
        let loopsSeen = try await withThrowingTaskGroup(of: String?.self) { tasks in
            for (c, caller) in callers.enumerated() {
                for i in 0..<50 {
                    tasks.addTask {
                        let body = bytes("c\(c)-r\(i)")
                        let response = try await caller.send(HTTP2ClientRequest(method: "POST", path: "/", body: body))
                        XCTAssertEqual(response.status, 200, text(response.body))
                        XCTAssertEqual(response.body, body.reversed(), "the backend's answer, relayed")
                        return response.header("x-loop")
                    }
                }
            }
            return try await tasks.reduce(into: Set<String?>()) { $0.insert($1) }
        }
        XCTAssertEqual(loopsSeen, ["0", "1"], "connections were spread over both loops")
        XCTAssertEqual(handledOn.withLock { $0 }, [0, 1])
    }

    func testSharedLoopsOutliveTheServerAndClientThatUseThem() async throws {
        let group = try HTTP2EventLoopGroup(threadCount: 2)
        let server = HTTP2Server(eventLoops: group, handler: echoHandler)
        let port = try server.start()
        let client = try HTTP2Client(eventLoops: group)
        let connection = try await client.connect(host: "127.0.0.1", port: port)
        let first = try await connection.send(HTTP2ClientRequest(path: "/now"))
        XCTAssertEqual(first.status, 200)

        // Graceful shutdown on shared loops: GOAWAY, the request in flight still completes.
        let slow = Task { try await connection.send(HTTP2ClientRequest(path: "/slow", headers: [("x-delay-ms", "200")])) }
        await eventually("the request in flight") { server.statistics().activeRequests == 1 }
        await Task.detached { server.shutdown(gracePeriod: .seconds(10)) }.value
        let answer = try await slow.value
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.header("x-path"), "/slow")
        XCTAssertThrowsError(try RawSocket(port: port), "the listener is closed")
        XCTAssertEqual(server.statistics().openConnections, 0)
        try assertLoopsRun(group, "after the server shut down")

        client.shutdown()
        try assertLoopsRun(group, "after the client shut down")
        XCTAssertEqual(Self.loopThreads().filter { $0 == "h2-0" || $0 == "h2-1" }.sorted(), ["h2-0", "h2-1"],
                       "the group's threads are still running")

        group.shutdown()
        XCTAssertFalse(group.loops[0].execute {})
        server.shutdown()  // idempotent, also after the loops are gone
        client.shutdown()
    }

    func testShuttingTheGroupDownFirstClosesEverythingOnIt() async throws {
        let group = try HTTP2EventLoopGroup(threadCount: 2)
        let cancelled = expectation(description: "the responder was cancelled")
        let received = expectation(description: "the request arrived")
        let server = HTTP2Server(eventLoops: group) { _, responder in
            responder.onCancel { cancelled.fulfill() }
            received.fulfill()  // never answered
        }
        let port = try server.start()
        let client = try HTTP2Client(eventLoops: group)
        let connection = try await client.connect(host: "127.0.0.1", port: port)
        let closed = expectation(description: "the client connection reported its close")
        connection.onClose { closed.fulfill() }
        let pending = Task { try await connection.send(HTTP2ClientRequest(path: "/never")) }
        await fulfillment(of: [received], timeout: 10)

        await Task.detached { group.shutdown() }.value
        await fulfillment(of: [cancelled, closed], timeout: 10)
        let error = await clientError { try await pending.value }
        XCTAssertEqual(error?.code, .connectionClosed)
        XCTAssertFalse(connection.isAcceptingRequests)
        // Their shutdowns find nothing left to do, and return.
        await Task.detached {
            server.shutdown(gracePeriod: .seconds(10))
            client.shutdown()
        }.value
        XCTAssertThrowsError(try server.start(), "a stopped server does not start again")
        let late = try HTTP2Client(eventLoops: group)
        let connectError = await clientError { try await late.connect(host: "127.0.0.1", port: port) }
        XCTAssertTrue(connectError.map { [.notConnected, .connectFailed].contains($0.code) } ?? false,
                      String(describing: connectError))
        late.shutdown()
    }

    func testServerOnAStoppedGroupDoesNotStart() throws {
        let group = try HTTP2EventLoopGroup(threadCount: 1)
        group.shutdown()
        let server = HTTP2Server(eventLoops: group, handler: echoHandler)
        XCTAssertThrowsError(try server.start()) { error in
            XCTAssertTrue("\(error)".contains("shut down"), "\(error)")
        }
        server.shutdown()
    }

    private func assertLoopsRun(_ group: HTTP2EventLoopGroup, _ when: String, file: StaticString = #filePath,
                                line: UInt = #line) throws {
        for loop in group.loops {
            let ran = DispatchSemaphore(value: 0)
            XCTAssertTrue(loop.execute { ran.signal() }, "loop \(loop.index) refused a task \(when)", file: file, line: line)
            XCTAssertEqual(ran.wait(timeout: .now() + 10), .success, "loop \(loop.index) ran no task \(when)",
                           file: file, line: line)
        }
    }
}
