import Foundation
import HTTP2
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// What a connection pool relies on: the connect timeout, `onClose`, `isAcceptingRequests` and
/// `forceClose`.
final class ClientConnectionTests: ResourceCheckingTestCase {
    func testConnectToAnAddressThatNeverAnswersTimesOut() async throws {
        let blackHole = try UnansweredAddress()
        defer { blackHole.remove() }
        var configuration = HTTP2Client.Configuration()
        configuration.connectTimeout = .milliseconds(300)
        let client = try HTTP2Client(configuration: configuration)
        defer { client.shutdown() }
        let started = ContinuousClock.now
        let result = await withCheckedContinuation { continuation in
            blackHole.connectFromInside {
                client.connect(host: blackHole.host, port: 7701) { continuation.resume(returning: $0) }
            }
        }
        let elapsed = ContinuousClock.now - started
        switch result {
        case .success:
            XCTFail("connected to an address that drops every packet")
        case .failure(let error):
            XCTAssertEqual(error.code, .connectFailed)
            XCTAssertTrue(error.message.contains("timed out"), error.message)
            XCTAssertEqual((error.cause as? HTTP2SystemError)?.code, ETIMEDOUT, "\(error)")
        }
        // Liveness only (the kernel would retry SYNs for about two minutes), not a latency bound.
        XCTAssertLessThan(elapsed, .seconds(20))
        // The socket is closed: the leak check in tearDown counts it.
    }

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
        // Closed by this side, and said so: a caller need not blame the server for it.
        XCTAssertEqual(error?.code, .closedLocally)
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

/// An IPv4 address that never answers: a network namespace of the test's own, where
/// 10.254.254.0/24 is routed into the loopback device. A SYN sent there comes back in on `lo`
/// addressed to nobody (not local, and the namespace does not forward) and is dropped, so a
/// connect stays pending as it does towards a host whose link is down.
///
/// Why a namespace: nothing changes in the machine's own network (a blackhole route there would
/// also fail fast with EINVAL, not hang; iptables is not installed; a listener with a full
/// backlog drops SYNs only as long as the kernel's accept-queue heuristics say so). The socket is
/// created in the namespace by calling `connect` from a thread that joined it (`setns` applies to
/// the calling thread only); once created, a socket stays in its namespace whatever thread uses it.
///
/// Needs root and `ip`; otherwise the test is skipped. The namespace is removed by `remove()`
/// (deferred by the test), and namespaces left by a test process that died are removed first.
/// `ip` runs through posix_spawn rather than Foundation's Process, which closes the sockets it
/// opens per child asynchronously, after the child exited, and would trip the leak check.
final class UnansweredAddress: Sendable {
    let host = "10.254.254.1"
    private let name = "h2test-\(getpid())"
    private static let ip: String? = ["/usr/sbin/ip", "/usr/bin/ip", "/sbin/ip", "/bin/ip"].first { (path: String) in
        access(path, X_OK) == 0
    }

    init() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to create a network namespace") }
        guard let ip = Self.ip else { throw XCTSkip("ip (iproute2) is not installed") }
        let existing = (try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []
        for stale in existing where stale.hasPrefix("h2test-") {
            if let pid = Int32(stale.dropFirst("h2test-".count)), kill(pid, 0) != 0 {
                _ = spawnAndWait(ip, ["netns", "delete", stale])
            }
        }
        let steps = [["netns", "add", name],
                     ["-n", name, "link", "set", "lo", "up"],
                     ["-n", name, "route", "add", "10.254.254.0/24", "dev", "lo"]]
        for step in steps where spawnAndWait(ip, step) != 0 {
            remove()
            throw XCTSkip("`ip \(step.joined(separator: " "))` failed (see the test's standard error)")
        }
    }

    /// Runs `body` on a new thread that has joined the namespace, and waits for it to return.
    func connectFromInside(_ body: @escaping @Sendable () -> Void) {
        let path = "/run/netns/\(name)"
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return XCTFail("open \(path): errno \(errno)") }
            defer { close(fd) }
            guard setNetworkNamespace(fd) == 0 else { return XCTFail("setns: errno \(errno)") }
            body()
        }
        thread.start()
        done.wait()
    }

    func remove() {
        if let ip = Self.ip { _ = spawnAndWait(ip, ["netns", "delete", name]) }
    }
}

/// Runs `path` with `arguments` (inheriting standard output and error) and returns its exit
/// status, or -1 if it could not be started.
private func spawnAndWait(_ path: String, _ arguments: [String]) -> Int32 {
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, path, nil, nil, argv, environ) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        if errno != EINTR { return -1 }
    }
    // WIFEXITED / WEXITSTATUS, which Swift does not import (they are macros).
    return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
}

/// setns(2) for a network namespace; Swift's Glibc module does not export it.
private func setNetworkNamespace(_ fd: Int32) -> Int32 {
    typealias SetNS = @convention(c) (Int32, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else { return -1 }
    let cloneNewNet: Int32 = 0x4000_0000  // CLONE_NEWNET, <sched.h>
    return unsafeBitCast(symbol, to: SetNS.self)(fd, cloneNewNet)
}
