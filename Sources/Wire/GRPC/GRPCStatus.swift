/// An error that knows the status it answers with (an index failure, say, whose module the wire
/// layer does not depend on: the conformance lives where the two meet).
public protocol GRPCStatusConvertible: Error {
    var grpcStatus: GRPCStatus { get }
}

/// A gRPC status: the outcome of a call, sent in the `grpc-status` and `grpc-message` trailers.
///
/// Codes are the ones of gRPC's `doc/statuscodes.md`; ``connectCode`` and ``httpStatus`` give the
/// Connect protocol's JSON spelling and HTTP status for the same outcome.
public struct GRPCStatus: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        case ok = 0, cancelled, unknown, invalidArgument, deadlineExceeded, notFound, alreadyExists,
             permissionDenied, resourceExhausted, failedPrecondition, aborted, outOfRange, unimplemented,
             `internal`, unavailable, dataLoss, unauthenticated
    }

    public var code: Code
    public var message: String
    /// Why, in words a program may act on (`reason` stable across releases), with facts as
    /// key/value pairs: gRPC's rich error model, sent as a google.rpc.Status in the
    /// `grpc-status-details-bin` trailer (and in a Connect error's `details`). A caller decides by
    /// the reason, never by the message's text.
    public var errorInfo: Google_Rpc_ErrorInfo?

    public init(_ code: Code, _ message: String = "", errorInfo: Google_Rpc_ErrorInfo? = nil) {
        self.code = code
        self.message = message
        self.errorInfo = errorInfo
    }

    /// The reason of ``errorInfo``, if any.
    public var reason: String? { errorInfo?.reason }

    /// The type URL of the ErrorInfo detail in a google.rpc.Status.
    public static let errorInfoTypeURL = "type.googleapis.com/google.rpc.ErrorInfo"

    /// The ``reason`` of a call that failed because this process closed its own connection (a
    /// client dropping a link on a failed health check): it may be retried elsewhere, but it says
    /// nothing new about the server's health.
    public static let closedLocallyReason = "CONNECTION_CLOSED_LOCALLY"

    /// The status as google.rpc.Status, encoded: the value of `grpc-status-details-bin` (before
    /// base64), nil when there are no details to send.
    public var encodedDetails: [UInt8]? {
        guard let errorInfo else { return nil }
        return Google_Rpc_Status(code: Int32(code.rawValue), message: message,
                                 details: [Google_Protobuf_Any(typeUrl: Self.errorInfoTypeURL, value: errorInfo.serializedBytes())])
            .serializedBytes()
    }

    /// The ErrorInfo of an encoded google.rpc.Status (a `grpc-status-details-bin` value after
    /// base64), or nil when it holds none or does not decode (the details never change the code).
    public static func errorInfo(inEncodedDetails bytes: [UInt8]) -> Google_Rpc_ErrorInfo? {
        guard let status = try? Google_Rpc_Status(serializedBytes: bytes),
              let detail = status.details.first(where: { $0.typeUrl == errorInfoTypeURL }) else { return nil }
        return try? Google_Rpc_ErrorInfo(serializedBytes: detail.value)
    }

    public static let ok = GRPCStatus(.ok)

    public var description: String { message.isEmpty ? "\(code)" : "\(code): \(message)" }

    /// A malformed message is the caller's fault.
    public init(_ error: ProtoError) {
        self.init(.invalidArgument, "malformed request message: \(error)")
    }

    /// Any error, mapped as precisely as its type allows.
    public init(describing error: any Error) {
        switch error {
        case let status as GRPCStatus: self = status
        case let convertible as any GRPCStatusConvertible: self = convertible.grpcStatus
        case let proto as ProtoError: self.init(proto)
        default: self.init(.internal, "\(error)")
        }
    }

    /// The Connect protocol's name of the code (`invalid_argument`).
    public var connectCode: String {
        switch code {
        case .ok: "ok"
        case .cancelled: "canceled"
        case .unknown: "unknown"
        case .invalidArgument: "invalid_argument"
        case .deadlineExceeded: "deadline_exceeded"
        case .notFound: "not_found"
        case .alreadyExists: "already_exists"
        case .permissionDenied: "permission_denied"
        case .resourceExhausted: "resource_exhausted"
        case .failedPrecondition: "failed_precondition"
        case .aborted: "aborted"
        case .outOfRange: "out_of_range"
        case .unimplemented: "unimplemented"
        case .internal: "internal"
        case .unavailable: "unavailable"
        case .dataLoss: "data_loss"
        case .unauthenticated: "unauthenticated"
        }
    }

    /// The HTTP status the Connect protocol pairs with the code.
    public var httpStatus: Int {
        switch code {
        case .ok: 200
        case .cancelled: 499
        case .invalidArgument, .outOfRange: 400
        case .failedPrecondition: 412
        case .deadlineExceeded: 504
        case .notFound: 404
        case .alreadyExists, .aborted: 409
        case .permissionDenied: 403
        case .resourceExhausted: 429
        case .unimplemented: 501
        case .unavailable: 503
        case .unauthenticated: 401
        case .unknown, .internal, .dataLoss: 500
        }
    }

    /// `grpc-message` is percent-encoded UTF-8: bytes outside printable ASCII and `%` itself.
    public var encodedMessage: String {
        var out = ""
        for byte in message.utf8 {
            if byte >= 0x20 && byte <= 0x7E && byte != 0x25 {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    /// Decodes a percent-encoded `grpc-message`; malformed escapes are kept as written.
    public static func decodeMessage(_ text: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var i = 0
        while i < utf8.count {
            if utf8[i] == 0x25, i + 2 < utf8.count, let value = UInt8(String(decoding: utf8[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) {
                bytes.append(value)
                i += 3
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension GRPCStatus.Code {
    /// The code's name as gRPC's `doc/statuscodes.md` writes it (`INVALID_ARGUMENT`): the label of
    /// metrics and logs.
    public var name: String {
        switch self {
        case .ok: "OK"
        case .cancelled: "CANCELLED"
        case .unknown: "UNKNOWN"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .deadlineExceeded: "DEADLINE_EXCEEDED"
        case .notFound: "NOT_FOUND"
        case .alreadyExists: "ALREADY_EXISTS"
        case .permissionDenied: "PERMISSION_DENIED"
        case .resourceExhausted: "RESOURCE_EXHAUSTED"
        case .failedPrecondition: "FAILED_PRECONDITION"
        case .aborted: "ABORTED"
        case .outOfRange: "OUT_OF_RANGE"
        case .unimplemented: "UNIMPLEMENTED"
        case .internal: "INTERNAL"
        case .unavailable: "UNAVAILABLE"
        case .dataLoss: "DATA_LOSS"
        case .unauthenticated: "UNAUTHENTICATED"
        }
    }
}
