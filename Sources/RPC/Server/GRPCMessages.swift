import Wire

/// A gRPC request's messages, as slices of its body. Nearly every call carries exactly one (a
/// unary method's), which this holds without an array: an allocation per call saved on the
/// request path. A client stream's messages are kept in order behind the first.
struct GRPCMessages: Sendable {
    private let first: ArraySlice<UInt8>?
    private let rest: [ArraySlice<UInt8>]

    /// Splits a request body (see ``GRPCFraming/forEachMessage(in:maximumMessageBytes:_:)`` for
    /// what it refuses).
    init(in body: [UInt8], maximumMessageBytes: Int) throws(GRPCStatus) {
        var first: ArraySlice<UInt8>?
        var rest: [ArraySlice<UInt8>] = []
        try GRPCFraming.forEachMessage(in: body, maximumMessageBytes: maximumMessageBytes) { message in
            if first == nil { first = message } else { rest.append(message) }
        }
        self.first = first
        self.rest = rest
    }

    init(_ messages: [ArraySlice<UInt8>]) {
        first = messages.first
        rest = Array(messages.dropFirst())
    }

    var count: Int { first == nil ? 0 : 1 + rest.count }

    /// The one message of a unary call; nil when there are none or several.
    var single: ArraySlice<UInt8>? { rest.isEmpty ? first : nil }

    func map<T, E: Error>(_ transform: (ArraySlice<UInt8>) throws(E) -> T) throws(E) -> [T] {
        guard let first else { return [] }
        var result = [try transform(first)]
        for message in rest { result.append(try transform(message)) }
        return result
    }
}
