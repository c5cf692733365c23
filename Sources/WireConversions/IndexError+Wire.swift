import Index
import Wire

/// The status an index failure answers with.
extension IndexError: GRPCStatusConvertible {
    public var grpcStatus: GRPCStatus {
        let info = reason.map { Google_Rpc_ErrorInfo(reason: $0.rawValue, domain: "typeahead", metadata: metadata) }
        return switch code {
        case .invalidArgument: GRPCStatus(.invalidArgument, message, errorInfo: info)
        case .notFound: GRPCStatus(.notFound, message, errorInfo: info)
        case .failedPrecondition: GRPCStatus(.failedPrecondition, message, errorInfo: info)
        case .dataLoss: GRPCStatus(.dataLoss, message, errorInfo: info)
        case .internal: GRPCStatus(.internal, message, errorInfo: info)
        case .cancelled: GRPCStatus(.cancelled, message, errorInfo: info)
        }
    }
}

extension GRPCStatus {
    /// The status an index failure answers with.
    public init(_ error: IndexError) {
        self = error.grpcStatus
    }
}

/// An INVALID_ARGUMENT error naming the proto field (`tokens[2].kind`).
func invalid(_ field: String, _ problem: String) -> IndexError {
    IndexError(.invalidArgument, "\(field): \(problem)")
}

extension ResponseJSON {
    /// The CLI's answers, from Index types.
    public static func suggest(_ response: SuggestResponse) -> [UInt8] { suggest(Typeahead_V1_SuggestResponse(response)) }
    public static func search(_ response: SearchResponse) -> [UInt8] { search(Typeahead_V1_SearchResponse(response)) }
}
