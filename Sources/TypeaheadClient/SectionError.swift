import Foundation

/// Why a section of a scoped answer is empty: its collection failed as a whole (no shard of it
/// answered), while the other sections answered. A client shows the section as unavailable
/// rather than as "no results".
///
/// ```swift
/// for section in answer.sections where section.error != nil {
///     print("\(section.collection) is unavailable: \(section.error!.message)")
/// }
/// ```
public struct SectionError: Decodable, Sendable, Hashable {
    /// What a call naming the collection alone would have failed with, in the Connect spelling:
    /// `"unavailable"` or `"deadline_exceeded"`.
    public var code: String
    /// That call's message (which shards failed, and the first failure).
    public var message: String

    enum CodingKeys: String, CodingKey { case code, message }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decodeIfPresent(String.self, forKey: .code) ?? ""
        message = try container.decodeIfPresent(String.self, forKey: .message) ?? ""
    }
}
