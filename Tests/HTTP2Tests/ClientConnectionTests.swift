import Foundation
import HTTP2
import Synchronization
import XCTest

/// What a connection pool relies on: `onClose`, `isAcceptingRequests`, `forceClose` and
/// `connect(on:)`.
final class ClientConnectionTests: ResourceCheckingTestCase {
    func testOnCloseAndIsAcceptingRequestsFollowTheServerGoingAway() async throws {
        let held = Mutex<[HTTP2Responder]>([])
        let server = try TestServer { request, responder in
            if request.path == "/hold" { held.withLock { $0.append(responder) } } else { echoHandler(request, responder) }
        }
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: server.port)
        XCTAssertTrue(connection.isAcceptingRequests)
        let closed = expectation(description: "onClose ran")
        connection.onClose {
            XCTAssertTrue(connection.eventLoop.inEventLoop)
            closed.fulfill()
        }

        // A request in flight keeps the connection open through the server's GOAWAY.
        let pending = Task { try await connection.send(HTTP2ClientRequest(path: "/hold")) }
        await eventually("the request to arrive") { held.withLock { $0.count } == 1 }
        let stopped = Task.detached { server.stop(grace: .seconds(10)) }
        await eventually("GOAWAY to reach the client") { !connection.isAcceptingRequests }
        let error = await clientError { try await connection.send(HTTP2ClientRequest(path: "/after-goaway")) }
        XCTAssertEqual(error?.code, .notConnected)
        held.withLock { $0[0].respond(status: 200, body: bytes("finished")) }
        let answer = try await pending.value
        XCTAssertEqual(text(answer.body), "finished")
        await fulfillment(of: [closed], timeout: 10)
        await stopped.value

        // Registered after the close: runs right away.
        let late = expectation(description: "late onClose ran")
        connection.onClose { late.fulfill() }
        await fulfillment(of: [late], timeout: 10)
    }

    func testForceCloseFailsRequestsInFlightAndRunsCloseHandlersOnce() async throws {
        let received = expectation(description: "the request arrived")
        let server = try TestServer { _, _ in received.fulfill() }  // never answers
        defer { server.stop() }
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: server.port)
        let closes = Mutex<[Int]>([])
        let closed = expectation(description: "both close handlers ran")
        closed.expectedFulfillmentCount = 2
        for n in 1...2 {
            connection.onClose {
                closes.withLock { $0.append(n) }
                closed.fulfill()
            }
        }
        let pending = Task { try await connection.send(HTTP2ClientRequest(path: "/forever")) }
        await fulfillment(of: [received], timeout: 10)

        connection.forceClose()
        let error = await clientError { try await pending.value }
        XCTAssertEqual(error?.code, .connectionClosed)
        await fulfillment(of: [closed], timeout: 10)
        XCTAssertFalse(connection.isAcceptingRequests)
        connection.forceClose()  // again: nothing happens
        connection.close()
        try await Task.sleep(for: .milliseconds(50))
        XCTAssertEqual(closes.withLock { $0 }, [1, 2], "in registration order, once")
        await eventually("the server to see the close") { server.server.statistics().openConnections == 0 }
    }

    func testClosingTheConnectionStopsNewRequestsAtOnce() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: server.port)
        let closed = expectation(description: "closed after GOAWAY")
        connection.onClose { closed.fulfill() }
        connection.close()
        await eventually("GOAWAY sent") { !connection.isAcceptingRequests }
        await fulfillment(of: [closed], timeout: 10)
    }

    func testConnectOnAGivenLoopAndSendFromIt() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        var configuration = HTTP2Client.Configuration()
        configuration.threadCount = 3
        let client = try HTTP2Client(configuration: configuration)
        defer { client.shutdown() }
        // Without a loop: round robin over the client's own loops.
        var loops: [HTTP2EventLoop] = []
        for _ in 0..<3 { loops.append(try await client.connect(host: "127.0.0.1", port: server.port).eventLoop) }
        XCTAssertEqual(Set(loops).count, 3)

        // With a loop, from that loop: set up inline, completion and send on the same thread.
        let loop = loops[2]
        let answered = expectation(description: "answered on the loop")
        loop.execute {
            client.connect(host: "127.0.0.1", port: server.port, on: loop) { result in
                guard case .success(let connection) = result, loop.inEventLoop, connection.eventLoop == loop else {
                    return XCTFail("connect: \(result)")
                }
                connection.send(HTTP2ClientRequest(method: "POST", path: "/", body: bytes("abc"))) { result in
                    XCTAssertTrue(loop.inEventLoop)
                    XCTAssertEqual(try? result.get().body, bytes("cba"))
                    answered.fulfill()
                }
            }
        }
        await fulfillment(of: [answered], timeout: 10)
    }
}
