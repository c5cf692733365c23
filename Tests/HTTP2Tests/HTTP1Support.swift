import Foundation
import HTTP2
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 response as the test client read it. Field names are lowercased.
struct HTTP1TestResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    var trailers: [(name: String, value: String)]

    func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
    func trailer(_ name: String) -> String? { trailers.first { $0.name == name }?.value }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking HTTP/1.1 client over ``RawSocket`` that writes raw request bytes (so tests control
/// every byte, including malformed ones) and reads responses one at a time. Its response reader
/// is a test aid only: enough for content-length, chunked, and close-delimited bodies.
final class HTTP1TestClient {
    let socket: RawSocket
    private var buffer: [UInt8] = []
    private(set) var sawEOF = false

    init(port: Int) throws { socket = try RawSocket(port: port) }

    func send(_ text: String) throws { try socket.write(Array(text.utf8)) }
    func send(_ bytes: [UInt8]) throws { try socket.write(bytes) }

    /// Reads one response. `bodyless`: the answer to a HEAD (no body whatever the fields say).
    func readResponse(bodyless: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws -> HTTP1TestResponse {
        let headEnd = try readUntil(Array("\r\n\r\n".utf8))
        let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
            XCTFail("not an HTTP/1.1 status line: \(statusLine)", file: file, line: line)
            throw HTTP2SystemError(code: EPROTO, function: "readResponse")
        }
        let headers = lines.map(Self.field)
        var response = HTTP1TestResponse(status: status, headers: headers, body: [], trailers: [])
        if bodyless || (100..<200).contains(status) || status == 204 || status == 304 { return response }
        if response.header("transfer-encoding") == "chunked" {
            while true {
                let sizeEnd = try readUntil(Array("\r\n".utf8))
                let size = Int(String(decoding: buffer[0..<sizeEnd], as: UTF8.self), radix: 16) ?? -1
                buffer.removeFirst(sizeEnd + 2)
                if size == 0 { break }
                try fill(size + 2)
                response.body += buffer[0..<size]
                buffer.removeFirst(size + 2)
            }
            while true {
                let end = try readUntil(Array("\r\n".utf8))
                let fieldLine = String(decoding: buffer[0..<end], as: UTF8.self)
                buffer.removeFirst(end + 2)
                if fieldLine.isEmpty { break }
                response.trailers.append(Self.field(fieldLine))
            }
        } else if let length = response.header("content-length").flatMap(Int.init) {
            try fill(length)
            response.body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else {
            response.body = try readToEnd()
        }
        return response
    }

    /// Everything until the server closes (what was buffered first).
    func readToEnd() throws -> [UInt8] {
        let rest = buffer + (sawEOF ? [] : try socket.readToEnd())
        buffer = []
        sawEOF = true
        return rest
    }

    /// Sends FIN and stops reading: to the server, the client is gone.
    func hangUp() { _ = Glibc.shutdown(socket.fd, Int32(SHUT_RDWR)) }

    private static func field(_ line: String) -> (name: String, value: String) {
        let colon = line.firstIndex(of: ":") ?? line.endIndex
        let value = colon < line.endIndex ? line[line.index(after: colon)...] : ""
        return (line[..<colon].lowercased(), value.trimmingCharacters(in: .whitespaces))
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        var searchFrom = 0
        while true {
            if buffer.count >= marker.count {
                for start in searchFrom...(buffer.count - marker.count) where buffer[start..<(start + marker.count)].elementsEqual(marker) {
                    return start
                }
                searchFrom = buffer.count - marker.count + 1
            }
            try readMore()
        }
    }

    private func fill(_ count: Int) throws {
        while buffer.count < count { try readMore() }
    }

    private func readMore() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(socket.fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffer += chunk[0..<n]
                return
            }
            if n == 0 {
                sawEOF = true
                throw HTTP2SystemError(code: ECONNRESET, function: "recv: the server closed the connection")
            }
            if errno == EINTR { continue }
            throw HTTP2SystemError(code: errno, function: "recv")
        }
    }
}

/// Requests a test handler received, in order (handlers run on loop threads).
final class RequestLog: Sendable {
    private let requests = Mutex<[HTTP2Request]>([])

    func append(_ request: HTTP2Request) { requests.withLock { $0.append(request) } }
    var all: [HTTP2Request] { requests.withLock { $0 } }
}
