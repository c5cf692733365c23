// The only file that touches yajl. It owns one parse handle and feeds it one line at a time; the
// callbacks forward yajl's events to an EntryBuilder.
//
// Handle reuse: yajl 2.1 has no reset, and allocating a handle costs five mallocs and frees. We
// configure the handle with `yajl_allow_multiple_values`, so after a complete top-level value it
// is ready for the next one, and keep it for as long as lines parse cleanly. After any error
// (syntax error, premature end, or a callback stopping the parse) the handle is stuck in its error
// state, so it is freed and a fresh one is made for the next line. "Exactly one object per line"
// is enforced by the EntryBuilder, which rejects any value after the object is closed.
//
// Lifetimes: the builder and the callback table live in memory allocated here, at fixed addresses,
// because yajl keeps pointers to both (`yajl_alloc` stores the callbacks pointer, not a copy).
// Passing a plain pointer to a struct as the context, rather than `Unmanaged<SomeClass>`, also
// spares each event a retain/release pair and a dynamic exclusivity check.

import CYAJL

/// Parses single catalog lines with yajl. Not thread-safe: one per reader.
final class JSONLineParser {
    enum Outcome {
        case blank
        case entry(CatalogEntry, unknownFields: Int, notices: CatalogNotices)
        case invalid(String)
    }

    let limits: CatalogLimits
    private let builder: UnsafeMutablePointer<EntryBuilder>
    private let callbacks: UnsafeMutablePointer<yajl_callbacks>
    /// Nil until the first line, and after a line that left yajl in its error state.
    private var handle: OpaquePointer?

    init(limits: CatalogLimits) {
        self.limits = limits
        builder = .allocate(capacity: 1)
        builder.initialize(to: EntryBuilder(limits: limits))
        callbacks = .allocate(capacity: 1)
        callbacks.initialize(to: yajl_callbacks(
            yajl_null: { context in continueParse(entryBuilder(context).pointee.scalar(.null)) },
            yajl_boolean: { context, value in
                continueParse(entryBuilder(context).pointee.scalar(.bool(value != 0)))
            },
            yajl_integer: nil,  // unused: `yajl_number` receives every number as text
            yajl_double: nil,
            yajl_number: { context, text, length in
                let start = UnsafeRawPointer(text)?.assumingMemoryBound(to: UInt8.self)
                let bytes = UnsafeBufferPointer(start: start, count: length)
                return continueParse(entryBuilder(context).pointee.scalar(.number(bytes)))
            },
            yajl_string: { context, text, length in
                let bytes = UnsafeBufferPointer(start: text, count: length)
                return continueParse(entryBuilder(context).pointee.scalar(.string(bytes)))
            },
            yajl_start_map: { context in continueParse(entryBuilder(context).pointee.startMap()) },
            yajl_map_key: { context, text, length in
                continueParse(entryBuilder(context).pointee.mapKey(UnsafeBufferPointer(start: text, count: length)))
            },
            yajl_end_map: { context in continueParse(entryBuilder(context).pointee.endMap()) },
            yajl_start_array: { context in continueParse(entryBuilder(context).pointee.startArray()) },
            yajl_end_array: { context in continueParse(entryBuilder(context).pointee.endArray()) }
        ))
    }

    deinit {
        if let handle { yajl_free(handle) }
        builder.deinitialize(count: 1)
        builder.deallocate()
        callbacks.deinitialize(count: 1)
        callbacks.deallocate()
    }

    /// Parses one line. A trailing "\n" and then "\r" are ignored.
    ///
    /// Complexity: O(length of the line). The bytes are only read during the call.
    func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
        var line = bytes
        if line.last == 0x0A { line = UnsafeBufferPointer(rebasing: line.dropLast()) }
        if line.last == 0x0D { line = UnsafeBufferPointer(rebasing: line.dropLast()) }
        if line.count > limits.maximumLineBytes {
            return .invalid(lineTooLongReason(length: line.count, limit: limits.maximumLineBytes))
        }
        guard let base = line.baseAddress, !isBlank(line) else { return .blank }
        if let offset = firstInvalidUTF8Offset(line) {
            return .invalid("invalid UTF-8 at byte \(offset + 1)")
        }

        let handle = self.handle ?? makeHandle()
        builder.pointee.begin(line: line)
        var status = yajl_parse(handle, base, line.count)
        var atEnd = false
        if status == yajl_status_ok {
            // Flushes a token that ends the line (yajl cannot know "12" is complete until it sees
            // what follows) and reports a premature end.
            status = yajl_complete_parse(handle)
            atEnd = true
        }
        guard status == yajl_status_ok else {
            let reason: String
            if status == yajl_status_client_canceled, let failure = builder.pointee.failure {
                reason = failure
            } else {
                reason = syntaxErrorReason(handle, atEnd: atEnd)
            }
            yajl_free(handle)  // stuck in its error state; see the notes at the top
            self.handle = nil
            return .invalid(reason)
        }
        switch builder.pointee.takeEntry() {
        case .success(let entry): return .entry(entry, unknownFields: builder.pointee.unknownFields, notices: builder.pointee.notices)
        case .failure(let failure): return .invalid(failure.reason)
        }
    }

    private func makeHandle() -> OpaquePointer {
        guard let handle = yajl_alloc(callbacks, nil, builder) else {
            fatalError("yajl_alloc failed: out of memory")
        }
        // Options must be set before the first yajl_parse, which creates the lexer.
        _ = cyajl_config(handle, yajl_allow_multiple_values, 1)
        // We validate UTF-8 of the whole line ourselves, with byte offsets (UTF8Validation.swift).
        _ = cyajl_config(handle, yajl_dont_validate_strings, 1)
        self.handle = handle
        return handle
    }

    /// "invalid JSON: <yajl's message> (near byte N)" for a handle that failed.
    private func syntaxErrorReason(_ handle: OpaquePointer, atEnd: Bool) -> String {
        var message = "unknown error"
        if let text = yajl_get_error(handle, 0, nil, 0) {
            message = String(cString: text)
            yajl_free_error(handle, text)
        }
        while let last = message.last, last.isWhitespace || last == "." { message.removeLast() }
        if atEnd {
            return "invalid JSON: \(message) (at end of line); is the line cut short?"
        }
        // yajl's offset is where its lexer stood, which can be a few bytes past the culprit.
        return "invalid JSON: \(message) (near byte \(yajl_get_bytes_consumed(handle) + 1))"
    }
}

/// The reason for a line over `CatalogLimits.maximumLineBytes`.
func lineTooLongReason(length: Int, limit: Int) -> String {
    "line is \(length) bytes long, over the limit of \(limit); "
        + "split the entry's text (a fixed limit of the catalog format)"
}

/// True when the line holds only JSON whitespace (space, tab, CR, LF).
private func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
    for byte in line where !(byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A) { return false }
    return true
}

@inline(__always)
private func entryBuilder(_ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<EntryBuilder> {
    context.unsafelyUnwrapped.assumingMemoryBound(to: EntryBuilder.self)
}

@inline(__always)
private func continueParse(_ proceed: Bool) -> Int32 { proceed ? 1 : 0 }
