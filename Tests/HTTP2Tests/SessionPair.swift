import HTTP2
import XCTest

/// A client session and a server session joined in memory: `pump` moves bytes both ways until
/// neither side has anything to send, collecting events and letting a test answer requests.
final class SessionPair {
    let server: HTTP2ServerSession
    let client: HTTP2ClientSession
    var serverEvents: [HTTP2ServerSession.Event] = []
    var clientEvents: [HTTP2ClientSession.Event] = []
    /// Called for each request event, may respond right away (or not, to leave the stream open).
    var onRequest: (HTTP2ServerSession, HTTP2Request) throws -> Void = { _, _ in }
    var onRejected: (HTTP2ServerSession, Int32, HTTP2StreamRejection) throws -> Void = { _, _, _ in }

    init(server: HTTP2SessionConfiguration = .init(), client: HTTP2SessionConfiguration = .init()) throws {
        self.server = try HTTP2ServerSession(configuration: server)
        self.client = try HTTP2ClientSession(configuration: client)
    }

    func pump(file: StaticString = #filePath, line: UInt = #line) throws {
        for _ in 0..<10_000 {
            var toServer: [UInt8] = []
            try client.send(into: &toServer)
            var toClient: [UInt8] = []
            try server.send(into: &toClient)
            // Sending can produce events too (a request that could not be sent, a stream closed
            // by our own RST_STREAM): drain before deciding that the pair has settled.
            client.drainEvents { clientEvents.append($0) }
            if toServer.isEmpty, toClient.isEmpty {
                server.drainEvents { serverEvents.append($0) }
                return
            }
            try server.receive(toServer)
            try server.drainEvents { event in
                serverEvents.append(event)
                switch event {
                case .request(let request): try onRequest(server, request)
                case .requestRejected(let id, let reason, _): try onRejected(server, id, reason)
                default: break
                }
            }
            try client.receive(toClient)
            client.drainEvents { clientEvents.append($0) }
        }
        XCTFail("pump did not settle", file: file, line: line)
    }

    var requests: [HTTP2Request] {
        serverEvents.compactMap { if case .request(let r) = $0 { return r } else { return nil } }
    }

    var responses: [HTTP2Response] {
        clientEvents.compactMap { if case .response(let r) = $0 { return r } else { return nil } }
    }

    func clientClose(of streamID: Int32) -> HTTP2ErrorCode? {
        for case .streamClosed(let id, let code) in clientEvents where id == streamID { return code }
        return nil
    }

    func serverClose(of streamID: Int32) -> HTTP2ErrorCode? {
        for case .streamClosed(let id, let code) in serverEvents where id == streamID { return code }
        return nil
    }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
