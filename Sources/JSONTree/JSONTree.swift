// Request bodies parsed with yajl into a small tree, with limits enforced while parsing.
//
// Why not Foundation's JSONSerialization: it builds the whole tree before any limit can be
// checked, and it turns numbers into Double-backed NSNumbers, so a uint64 of 2^64 + 1 arrived as 1.
// Here yajl hands over every event as it lexes; the builder refuses the value past
// `maximumValues`, the container past `maximumDepth` and a repeated key at once, and keeps every
// number as its text, so a caller converts it exactly (or refuses it) for its field's type.
//
// Lifetimes: the builder lives in memory allocated here for the parse, at a fixed address,
// because yajl keeps the context pointer for the handle's life; the handle is freed before
// `parse` returns. Thread-safe: nothing is shared between calls.

import CYAJL

/// A JSON value from a request body. Objects keep their members in order; numbers keep their text.
public indirect enum JSONNode: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number as written (`-12`, `3.5e2`): convert it for the field's type.
    case number(String)
    case string(String)
    case array([JSONNode])
    case object([(key: String, value: JSONNode)])

    public static func == (a: JSONNode, b: JSONNode) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.bool(x), .bool(y)): x == y
        case let (.number(x), .number(y)), let (.string(x), .string(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.object(x), .object(y)): x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }
}

/// Why a body is not a JSON value within the limits.
public struct JSONTreeError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

public enum JSONTree {
    /// Parses `body`, one JSON value (whitespace around it allowed, nothing else), refusing more
    /// than `maximumValues` values, nesting deeper than `maximumDepth`, an object with a key
    /// twice, invalid UTF-8, and everything RFC 8259 does not allow (comments, trailing commas).
    ///
    /// Complexity: O(body); memory: the tree, at most `maximumValues` nodes.
    public static func parse(_ body: [UInt8], maximumValues: Int = 1024, maximumDepth: Int = 8) throws(JSONTreeError) -> JSONNode {
        let builder = UnsafeMutablePointer<Builder>.allocate(capacity: 1)
        builder.initialize(to: Builder(maximumValues: maximumValues, maximumDepth: maximumDepth))
        defer {
            builder.deinitialize(count: 1)
            builder.deallocate()
        }
        guard let handle = withUnsafePointer(to: callbacks, { yajl_alloc($0, nil, builder) }) else {
            throw JSONTreeError(description: "out of memory")
        }
        defer { yajl_free(handle) }
        var status = body.withUnsafeBufferPointer { yajl_parse(handle, $0.baseAddress, $0.count) }
        if status == yajl_status_ok { status = yajl_complete_parse(handle) }
        if let failure = builder.pointee.failure { throw JSONTreeError(description: failure) }
        guard status == yajl_status_ok else {
            var message = "invalid JSON"
            if let text = yajl_get_error(handle, 0, nil, 0) {
                message = "invalid JSON: " + String(cString: text).trimmingTrailing()
                yajl_free_error(handle, text)
            }
            throw JSONTreeError(description: message)
        }
        guard let root = builder.pointee.root else { throw JSONTreeError(description: "the body holds no JSON value") }
        return root
    }

    private static func builder(_ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<Builder> {
        context.unsafelyUnwrapped.assumingMemoryBound(to: Builder.self)
    }

    private static func text(_ bytes: UnsafePointer<UInt8>?, _ length: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
    }

    /// yajl calls back into the builder; 0 stops the parse (after the builder noted why).
    private static let callbacks = yajl_callbacks(
        yajl_null: { context in builder(context).pointee.add(.null) },
        yajl_boolean: { context, value in builder(context).pointee.add(.bool(value != 0)) },
        yajl_integer: nil,  // unused: `yajl_number` receives every number as text
        yajl_double: nil,
        yajl_number: { context, text, length in
            let start = UnsafeRawPointer(text)?.assumingMemoryBound(to: UInt8.self)
            return builder(context).pointee.add(.number(JSONTree.text(start, length)))
        },
        yajl_string: { context, text, length in builder(context).pointee.add(.string(JSONTree.text(text, length))) },
        yajl_start_map: { context in builder(context).pointee.open(object: true) },
        yajl_map_key: { context, text, length in builder(context).pointee.key(JSONTree.text(text, length)) },
        yajl_end_map: { context in builder(context).pointee.close() },
        yajl_start_array: { context in builder(context).pointee.open(object: false) },
        yajl_end_array: { context in builder(context).pointee.close() }
    )

    /// The tree under construction: a stack of open containers.
    private struct Builder {
        let maximumValues: Int
        let maximumDepth: Int
        var values = 0
        var stack: [(isObject: Bool, items: [(key: String, value: JSONNode)], pendingKey: String?)] = []
        var root: JSONNode?
        var failure: String?

        init(maximumValues: Int, maximumDepth: Int) {
            self.maximumValues = maximumValues
            self.maximumDepth = maximumDepth
        }

        mutating func fail(_ reason: String) -> Int32 {
            failure = failure ?? reason
            return 0
        }

        mutating func count() -> Bool {
            values += 1
            return values <= maximumValues
        }

        mutating func add(_ node: JSONNode) -> Int32 {
            guard count() else { return fail("the body holds more than \(maximumValues) JSON values; no request needs that many") }
            return place(node)
        }

        mutating func place(_ node: JSONNode) -> Int32 {
            guard !stack.isEmpty else {
                root = node
                return 1
            }
            let key = stack[stack.count - 1].pendingKey ?? ""
            stack[stack.count - 1].pendingKey = nil
            stack[stack.count - 1].items.append((key, node))
            return 1
        }

        mutating func open(object: Bool) -> Int32 {
            guard count() else { return fail("the body holds more than \(maximumValues) JSON values; no request needs that many") }
            guard stack.count < maximumDepth else { return fail("the body nests deeper than \(maximumDepth) levels") }
            stack.append((object, [], nil))
            return 1
        }

        mutating func key(_ name: String) -> Int32 {
            let top = stack.count - 1
            if stack[top].items.contains(where: { $0.key == name }) { return fail("the key \"\(name.prefix(64))\" appears twice in one object") }
            stack[top].pendingKey = name
            return 1
        }

        mutating func close() -> Int32 {
            let container = stack.removeLast()
            return place(container.isObject ? .object(container.items) : .array(container.items.map(\.value)))
        }
    }
}

private extension String {
    func trimmingTrailing() -> String {
        var text = self
        while let last = text.last, last.isWhitespace || last == "." { text.removeLast() }
        return text
    }
}
