import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A failed call, as the server or the transport reported it.
public enum TypeaheadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an error: its HTTP status, the Connect code (`invalid_argument`,
    /// `unavailable`, …) and message.
    case server(status: Int, code: String, message: String)
    /// No answer: the server could not be reached, or the connection broke.
    case transport(String)
    /// An answer that is not what the API sends.
    case malformedAnswer(String)

    public var description: String {
        switch self {
        case let .server(status, code, message): "\(code) (HTTP \(status)): \(message)"
        case let .transport(message): "transport: \(message)"
        case let .malformedAnswer(message): "malformed answer: \(message)"
        }
    }
}

/// The typeahead JSON API of a node or a coordinator (`POST /typeahead.v1.Typeahead/Suggest`,
/// `/Search` and `/Describe` with `application/json`), with typed requests and answers. Foundation only: the same
/// code runs on Apple platforms and on Linux (FoundationNetworking).
///
/// ```swift
/// let client = TypeaheadClient(baseURL: URL(string: "http://127.0.0.1:7700")!)
/// let answer = try await client.suggest(SuggestRequest(text: "red sh"))
/// print(answer.completions.map(\.text))   // ["red Shoes", "red Shirt", …]
/// ```
///
/// Cancelling the calling task cancels the request on Apple platforms (what ``SearchModel`` does
/// with a superseded keystroke); on Linux the request runs to its end (see `send`).
public struct TypeaheadClient: Sendable {
    public let baseURL: URL
    /// Sent as `authorization: Bearer …` when the server requires a read token.
    public var token: String?
    public var session: URLSession
    /// How long one call may take.
    public var timeout: TimeInterval

    public init(baseURL: URL, token: String? = nil, session: URLSession = .shared, timeout: TimeInterval = 10) {
        self.baseURL = baseURL
        self.token = token
        self.session = session
        self.timeout = timeout
    }

    public func suggest(_ request: SuggestRequest) async throws(TypeaheadError) -> SuggestResponse {
        try await call("typeahead.v1.Typeahead/Suggest", request)
    }

    public func search(_ request: SearchRequest) async throws(TypeaheadError) -> SearchResponse {
        try await call("typeahead.v1.Typeahead/Search", request)
    }

    /// The scopes (a coordinator's), collections and default prompt the server offers.
    public func describe() async throws(TypeaheadError) -> DescribeResponse {
        try await call("typeahead.v1.Typeahead/Describe", DescribeRequest())
    }

    private func call<Request: Encodable, Response: Decodable>(_ method: String, _ body: Request) async throws(TypeaheadError) -> Response {
        var request = URLRequest(url: baseURL.appendingPathComponent(method), timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "authorization") }
        do {
            request.httpBody = try JSONEncoder().encode(body)
        } catch {
            throw .malformedAnswer("cannot encode the request: \(error)")
        }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await send(request)
        } catch {
            throw .transport(error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw .transport("not an HTTP answer") }
        guard http.statusCode == 200 else {
            let error = try? JSONDecoder().decode(ConnectError.self, from: data)
            throw .server(status: http.statusCode, code: error?.code ?? "unknown",
                          message: error?.message ?? String(decoding: data.prefix(200), as: UTF8.self))
        }
        do {
            return try JSONDecoder().decode(Response.self, from: data)
        } catch {
            throw .malformedAnswer("\(error)")
        }
    }
}

extension TypeaheadClient {
    /// One HTTP exchange. On Apple platforms, `URLSession.data(for:)`: cancelling the calling task
    /// cancels the request. FoundationNetworking (Linux) cannot cancel safely: its `data(for:)`
    /// can deadlock when cancelled (swift-corelibs-foundation#5412), and `URLSessionTask.cancel()`
    /// racing a task's completion traps in its task registry ("Trying to access a behaviour for a
    /// task that in not in the registry", seen in this project's tests). So there the request runs
    /// to its end and a superseded answer is dropped by its caller (``SearchModel`` keeps only the
    /// newest); keystroke requests are small.
    fileprivate func send(_ request: URLRequest) async throws -> (Data, URLResponse) {
        #if canImport(FoundationNetworking)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let data, let response {
                    continuation.resume(returning: (data, response))
                } else {
                    continuation.resume(throwing: URLError(.badServerResponse))
                }
            }.resume()
        }
        #else
        try await session.data(for: request)
        #endif
    }
}

/// Connect's error body: `{"code":"invalid_argument","message":"…"}`.
private struct ConnectError: Decodable {
    var code: String?
    var message: String?
}
