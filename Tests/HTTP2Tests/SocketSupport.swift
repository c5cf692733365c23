import Foundation
import HTTP2
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP socket for tests that need to misbehave (never read, send garbage).
final class RawSocket {
    let fd: Int32

    init(port: Int, receiveTimeout seconds: Int = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTP2SystemError(code: errno, function: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            let code = errno
            close(fd)
            throw HTTP2SystemError(code: code, function: "connect")
        }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw HTTP2SystemError(code: errno, function: "send")
            }
            offset += n
        }
    }

    /// Reads until EOF (returns everything read) or the receive timeout (throws).
    func readToEnd() throws -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return result }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET { return result }
                throw HTTP2SystemError(code: errno, function: "recv")
            }
            result.append(contentsOf: buffer[0..<n])
        }
    }
}

/// Polls `condition` until it holds or `timeout` passes (liveness, not performance).
func eventually(timeout: Duration = .seconds(10), _ message: String = "condition",
                file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now > deadline {
            XCTFail("timed out waiting for \(message)", file: file, line: line)
            return
        }
        try? await Task.sleep(for: .milliseconds(10))
    }
}

/// The ``HTTP2ClientError`` that `body` throws. Returning, or throwing anything else, fails the test
/// (and gives nil).
func clientError<T>(_ body: () async throws -> T, file: StaticString = #filePath, line: UInt = #line) async -> HTTP2ClientError? {
    do {
        _ = try await body()
        XCTFail("expected an HTTP2ClientError", file: file, line: line)
    } catch let error as HTTP2ClientError {
        return error
    } catch {
        XCTFail("expected an HTTP2ClientError, got \(error)", file: file, line: line)
    }
    return nil
}

/// Runs an external tool, returning its exit status and standard output (nil if not installed).
func runTool(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String)? {
    let candidates = ["/usr/bin/\(name)", "/usr/sbin/\(name)", "/usr/local/bin/\(name)"]
    guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
}

/// A test server: started on an ephemeral loopback port, shut down by `stop()`.
final class TestServer: Sendable {
    let server: HTTP2Server
    let port: Int

    init(_ configure: (inout HTTP2Server.Configuration) -> Void = { _ in },
         handler: @escaping @Sendable (HTTP2Request, HTTP2Responder) -> Void) throws {
        var configuration = HTTP2Server.Configuration()
        configuration.threadCount = 2
        configure(&configuration)
        server = HTTP2Server(configuration: configuration, handler: handler)
        port = try server.start()
    }

    func stop(grace: Duration = .seconds(2)) { server.shutdown(gracePeriod: grace) }
}

/// The handler most tests use: echoes the request back.
///   - body: the request body reversed; header `x-path` and `x-method`; trailer `x-trailer: done`
///   - `x-size: N` asks for an N-byte body instead
///   - `x-delay-ms: N` answers from another thread after N ms
let echoHandler: @Sendable (HTTP2Request, HTTP2Responder) -> Void = { request, responder in
    let answer: @Sendable () -> Void = {
        let body: [UInt8]
        if let size = request.header("x-size").flatMap(Int.init) {
            body = [UInt8](repeating: UInt8(ascii: "x"), count: size)
        } else {
            body = request.body.reversed()
        }
        responder.respond(status: 200, headers: [("x-path", request.path), ("x-method", request.method)],
                          body: body, trailers: [("x-trailer", "done")])
    }
    if let delay = request.header("x-delay-ms").flatMap(Int.init) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay), execute: answer)
    } else {
        answer()
    }
}

/// Checks that a test leaves no event-loop thread and no socket behind.
class ResourceCheckingTestCase: XCTestCase {
    private var socketsBefore = 0

    override func setUp() {
        super.setUp()
        socketsBefore = Self.openSockets()
    }

    override func tearDown() {
        XCTAssertEqual(Self.loopThreadsAfterExit(), [], "event-loop threads left running")
        XCTAssertEqual(Self.openSockets(), socketsBefore, "sockets left open")
        super.tearDown()
    }

    static func openSockets() -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter { ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) ?? "").hasPrefix("socket:") }.count
    }

    /// `loopThreads()` once the threads that are exiting have gone. pthread_join returns as soon as
    /// a thread has finished (the kernel clears its tid), a moment before the kernel removes its
    /// `/proc/self/task` entry, so a thread joined just now may still be listed: poll until it is
    /// not (liveness, a generous bound), and report what is still there after that.
    static func loopThreadsAfterExit(timeout: Duration = .seconds(5)) -> [String] {
        let deadline = ContinuousClock.now + timeout
        var threads = loopThreads()
        while !threads.isEmpty, ContinuousClock.now < deadline {
            usleep(1_000)
            threads = loopThreads()
        }
        return threads
    }

    static func loopThreads() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { $0.hasPrefix("h2-") }
    }
}
