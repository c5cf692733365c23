import Synchronization

/// A 64-bit request id, written as 16 lower-case hex digits (`"3f9a0c12d4e5b701"`).
///
/// `RequestID.next()` returns `base &+ n`, where `base` is drawn at random once per process and
/// `n` counts up from an atomic counter. So ids are unique within a process for 2⁶⁴ calls (not
/// merely "very likely unique"), two processes collide only if their ranges overlap (odds about
/// 2n / 2⁶⁴), and making one is one relaxed atomic add — no lock, no random number per call.
/// Ids from one process share their leading digits, which makes them easy to group by eye.
///
/// ```swift
/// let id = RequestID.next()
/// logger.info("request done", ["request_id": id.description])
/// ```
public struct RequestID: Sendable, Hashable, CustomStringConvertible {
    /// The id as a number.
    public let rawValue: UInt64

    /// Wraps an id, e.g. one received from a peer.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Parses exactly 16 hex digits (either case); `nil` for anything else.
    public init?(_ text: String) {
        // Check the digits ourselves: `UInt64(_:radix:)` would also accept a leading "+".
        guard text.utf8.count == 16, text.utf8.allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar($0)).isHexDigit }),
              let value = UInt64(text, radix: 16)
        else { return nil }
        self.rawValue = value
    }

    /// A new id, unique within this process. Thread-safe; O(1), lock-free.
    public static func next() -> RequestID {
        RequestIDGenerator.shared.next()
    }

    /// 16 lower-case hex digits, zero-padded.
    public var description: String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            for i in 0..<16 {
                buffer[i] = hexDigits[Int((rawValue >> UInt64(60 - 4 * i)) & 0xF)]
            }
            return 16
        }
    }
}

/// The counter behind ``RequestID/next()``; separate so that tests can choose the base.
final class RequestIDGenerator: Sendable {
    static let shared = RequestIDGenerator(base: UInt64.random(in: .min ... .max))

    private let base: UInt64
    private let counter = Atomic<UInt64>(0)

    init(base: UInt64) {
        self.base = base
    }

    func next() -> RequestID {
        let n = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        return RequestID(rawValue: base &+ n)
    }
}

private let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
