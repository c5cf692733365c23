/// A JSON value for writing responses (the proto3 JSON mapping of the API's messages).
///
/// Objects keep their key order, so output is stable and matches the `.proto` field order.
public indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// Integers are written exactly; the API keeps them below 2^53 so every JSON reader agrees.
    case integer(Int64)
    case unsigned(UInt64)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.serialized() == b.serialized() }
    public func hash(into hasher: inout Hasher) { hasher.combine(serialized()) }

    /// Compact JSON text.
    public func serialized() -> String {
        var json = JSONWriter()
        write(to: &json)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    public func write(to json: inout JSONWriter) {
        switch self {
        case .null: json.null()
        case .bool(let value): json.bool(value)
        case .integer(let value): json.integer(value)
        case .unsigned(let value): json.unsigned(value)
        case .string(let value): json.string(value)
        case .array(let values):
            json.beginArray()
            for value in values { value.write(to: &json) }
            json.endArray()
        case .object(let members):
            json.beginObject()
            for (key, value) in members {
                json.key(key)
                value.write(to: &json)
            }
            json.endObject()
        }
    }
}
