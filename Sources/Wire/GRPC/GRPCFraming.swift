/// gRPC's length-prefixed messages: a compressed-flag byte, a 4-byte big-endian length, the bytes.
public enum GRPCFraming {
    /// The prefix before each message: the compressed flag and the 4-byte length.
    public static let headerSize = 5

    /// Frames one uncompressed message.
    public static func frame(_ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(message.count + 5)
        out.append(0)
        let count = UInt32(message.count)
        out.append(UInt8(truncatingIfNeeded: count >> 24))
        out.append(UInt8(truncatingIfNeeded: count >> 16))
        out.append(UInt8(truncatingIfNeeded: count >> 8))
        out.append(UInt8(truncatingIfNeeded: count))
        out.append(contentsOf: message)
        return out
    }

    /// Splits a request body into its messages.
    ///
    /// - Throws: `unimplemented` for a compressed message (no codec is offered), `resourceExhausted`
    ///   for a message over `maximumMessageBytes`, `invalidArgument` for a length prefix that runs
    ///   past the body or a truncated prefix.
    public static func messages(in body: [UInt8], maximumMessageBytes: Int) throws(GRPCStatus) -> [ArraySlice<UInt8>] {
        var messages: [ArraySlice<UInt8>] = []
        try forEachMessage(in: body, maximumMessageBytes: maximumMessageBytes) { messages.append($0) }
        return messages
    }

    /// ``messages(in:maximumMessageBytes:)`` without the array: `visit` gets each message in turn
    /// (a unary answer's one message costs no allocation). Throws as it does, after visiting the
    /// messages before the fault.
    public static func forEachMessage(in body: [UInt8], maximumMessageBytes: Int,
                                      _ visit: (ArraySlice<UInt8>) -> Void) throws(GRPCStatus) {
        var offset = 0
        while offset < body.count {
            guard body.count - offset >= 5 else {
                throw GRPCStatus(.invalidArgument, "truncated message prefix: \(body.count - offset) bytes where 5 are needed")
            }
            let flag = body[offset]
            let length = Int(body[offset + 1]) << 24 | Int(body[offset + 2]) << 16 | Int(body[offset + 3]) << 8 | Int(body[offset + 4])
            guard flag == 0 else {
                throw GRPCStatus(.unimplemented, flag == 1
                    ? "compressed messages are not supported; send grpc-encoding identity"
                    : "bad message flag \(flag)")
            }
            guard length <= maximumMessageBytes else {
                throw GRPCStatus(.resourceExhausted, "message of \(length) bytes is over the limit of \(maximumMessageBytes)")
            }
            offset += 5
            guard length <= body.count - offset else {
                throw GRPCStatus(.invalidArgument, "message length prefix \(length) is larger than the \(body.count - offset) bytes that follow")
            }
            visit(body[offset..<(offset + length)])
            offset += length
        }
    }
}

/// The `grpc-timeout` header: up to 8 digits and a unit (H, M, S, m, u, n).
public enum GRPCTimeout {
    public static func parse(_ text: String) -> Duration? {
        guard let unit = text.last, text.count >= 2, text.count <= 9,
              let value = Int64(text.dropLast()), value >= 0 else { return nil }
        switch unit {
        case "H": return .seconds(value * 3600)
        case "M": return .seconds(value * 60)
        case "S": return .seconds(value)
        case "m": return .milliseconds(value)
        case "u": return .microseconds(value)
        case "n": return .nanoseconds(value)
        default: return nil
        }
    }

    /// Encodes a duration for the header (the coordinator sends it to nodes).
    public static func encode(_ duration: Duration) -> String {
        let micros = max(0, duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
        if micros < 100_000_000 { return "\(micros)u" }
        let millis = micros / 1000
        if millis < 100_000_000 { return "\(millis)m" }
        return "\(min(99_999_999, millis / 1000))S"
    }
}
