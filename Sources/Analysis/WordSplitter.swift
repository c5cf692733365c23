import CUTF8Proc

/// The scanner behind ``Analyzer``: rules 1–6 of the module documentation as one pass over the
/// UTF-8 bytes of the original text.
///
/// Why it is shaped like this: indexing runs it on every title and alias (hundreds of thousands
/// per second on one core), so it allocates nothing but the terms themselves. The word being
/// built lives in a fixed stack buffer that is reused for every word of a call; ASCII bytes are
/// classified and folded without calling utf8proc; other scalars are mapped with one
/// `utf8proc_decompose_char` call into a second stack buffer; terms of at most 15 UTF-8 bytes
/// are Swift small strings, so they do not allocate either.
///
/// State: at most one word is *open*. A pending apostrophe belongs to the open word and is
/// resolved by the next non-transparent scalar (rule 3). An ideograph or kana word (rule 4) is
/// kept open only so that marks following it extend its range; the next word character
/// closes it.
struct WordSplitter: ~Copyable {
    /// A term handed out as scalars: the first `length` of the buffer, and its UTF-16 range.
    typealias ScalarEmit = (UnsafePointer<Int32>, Int, Range<Int>) -> Void

    /// Raw mapped scalars kept for one word. Recomposition shrinks a word by at most 3:1
    /// (Hangul L+V+T), so 6 × 32 raw scalars always yield more than 32 composed ones and
    /// truncation (rule 5) never sees the cut. Longer words keep extending their range but stop
    /// storing scalars, which bounds the work for pathological input. Together with the
    /// mapping buffer this stays under the 1 KiB that `withUnsafeTemporaryAllocation`
    /// always places on the stack.
    static let wordCapacity = Analyzer.maximumWordLength * 6

    private let word: UnsafeMutablePointer<Int32>
    private let mapping: UnsafeMutablePointer<Int32>
    private var count = 0
    /// Whether a word has been started and not yet emitted.
    private(set) var isOpen = false
    /// Whether the open word is a single ideograph or kana.
    private var isSingle = false
    /// Whether an apostrophe followed the open word's last word character.
    private(set) var apostrophePending = false
    /// Whether the word holds non-ASCII scalars (ASCII words are already NFC).
    private var needsComposition = false
    /// Whether the word holds scalars with a non-zero combining class.
    private var needsReordering = false
    private var start = 0
    private var end = 0

    private init(word: UnsafeMutablePointer<Int32>, mapping: UnsafeMutablePointer<Int32>) {
        self.word = word
        self.mapping = mapping
    }

    /// Splits `text` into words, calling `emit` with each term and its UTF-16 range in order.
    ///
    /// Returns whether the text ends inside a word, i.e. ends in a word character possibly
    /// followed by transparent scalars (marks, default-ignorables), but not by an apostrophe.
    /// Complexity: O(n) in the length of `text`.
    static func split(_ text: String, emit: (String, Range<Int>) -> Void) -> Bool {
        splitScalars(text) { scalars, length, range in emit(makeTerm(scalars, length), range) }
    }

    /// Appends the UTF-8 of each term of `text`, followed by a space, to `bytes`, and asks `keep`
    /// about it (`bytes` so far, the term's place in it without the space, its UTF-16 range in
    /// `text`); a term not kept is removed again. Returns what ``split(_:emit:)`` returns.
    ///
    /// Why: the builder keeps an entry's words in one buffer. A `String` per word was an allocation
    /// past 15 bytes, a retain and a release per use and a copy into that buffer later.
    static func appendTerms(_ text: String, to bytes: inout [UInt8],
                            keep: (UnsafeRawBufferPointer, Range<Int>, Range<Int>) -> Bool) -> Bool {
        splitScalars(text) { scalars, length, range in
            let start = bytes.count
            appendUTF8(scalars, length, to: &bytes)
            let kept = bytes.withUnsafeBytes { keep($0, start..<bytes.count, range) }
            if kept { bytes.append(0x20) } else { bytes.removeSubrange(start...) }
        }
    }

    /// The splitter behind both: `emit` gets each term as its first `length` scalars (NFC, rule 5
    /// applied), valid during the call.
    private static func splitScalars(_ text: String, emit: ScalarEmit) -> Bool {
        withUnsafeTemporaryAllocation(of: Int32.self,
                                      capacity: wordCapacity + ScalarMapping.capacity) { scratch in
            var splitter = WordSplitter(word: scratch.baseAddress!,
                                        mapping: scratch.baseAddress! + wordCapacity)
            let done: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
                splitter.scan(bytes, emit: emit)
            }
            if done == nil {
                // Native Swift strings are contiguous UTF-8; only foreign (bridged) ones are not.
                var copy = text
                copy.makeContiguousUTF8()
                copy.utf8.withContiguousStorageIfAvailable { bytes in
                    splitter.scan(bytes, emit: emit)
                }
            }
            let endsInWord = splitter.isOpen && !splitter.apostrophePending
            splitter.finish(emit: emit)
            return endsInWord
        }
    }

    /// Decodes the (valid, because it came from a `String`) UTF-8 and feeds each scalar with
    /// its UTF-16 span to the state machine.
    private mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>,
                               emit: ScalarEmit) {
        var index = 0
        var utf16 = 0
        let n = bytes.count
        while index < n {
            let lead = bytes[index]
            if lead < 0x80 {
                let (role, folded) = ScalarMapping.asciiRole(lead)
                take(role, value: Int32(folded), from: utf16, to: utf16 + 1, emit: emit)
                index += 1
                utf16 += 1
                continue
            }
            let scalar: UInt32
            let length: Int
            if lead < 0xE0 {
                scalar = UInt32(lead & 0x1F) << 6 | UInt32(bytes[index + 1] & 0x3F)
                length = 2
            } else if lead < 0xF0 {
                scalar = UInt32(lead & 0x0F) << 12 | UInt32(bytes[index + 1] & 0x3F) << 6
                    | UInt32(bytes[index + 2] & 0x3F)
                length = 3
            } else {
                scalar = UInt32(lead & 0x07) << 18 | UInt32(bytes[index + 1] & 0x3F) << 12
                    | UInt32(bytes[index + 2] & 0x3F) << 6 | UInt32(bytes[index + 3] & 0x3F)
                length = 4
            }
            let width = scalar >= 0x10000 ? 2 : 1
            takeMapped(scalar, from: utf16, to: utf16 + width, emit: emit)
            index += length
            utf16 += width
        }
    }

    /// Rule 2 for one non-ASCII original scalar occupying UTF-16 offsets `from..<to`.
    private mutating func takeMapped(_ scalar: UInt32, from: Int, to: Int,
                                     emit: ScalarEmit) {
        let count = ScalarMapping.map(scalar, into: mapping, capacity: ScalarMapping.capacity)
        if count == 0 {
            // A default-ignorable: invisible, so it must not split "co\u{AD}operate".
            take(.transparent, value: 0, from: from, to: to, emit: emit)
        } else if count <= ScalarMapping.capacity {
            for i in 0..<count {
                takeMappedValue(mapping[i], from: from, to: to, emit: emit)
            }
        } else {
            // Not reachable with utf8proc 2.8 (see ScalarMapping.capacity); correct regardless.
            let values = [Int32](unsafeUninitializedCapacity: count) { buffer, initialized in
                initialized = ScalarMapping.map(scalar, into: buffer.baseAddress!, capacity: count)
            }
            for value in values {
                takeMappedValue(value, from: from, to: to, emit: emit)
            }
        }
    }

    @inline(__always)
    private mutating func takeMappedValue(_ value: Int32, from: Int, to: Int,
                                          emit: ScalarEmit) {
        if value < 0x80 {
            // E.g. fullwidth letters, ligatures, superscripts: folded ASCII after rule 2.
            let (role, folded) = ScalarMapping.asciiRole(UInt8(truncatingIfNeeded: value))
            take(role, value: Int32(folded), from: from, to: to, emit: emit)
            return
        }
        let (role, isNonStarter) = ScalarMapping.classify(value)
        take(role, value: value, from: from, to: to, emit: emit)
        // After `take`, which may have emitted the previous word and reset the flags. An
        // ideograph or kana word needs neither: it is one fully decomposed scalar, already NFC.
        if role == .word {
            needsComposition = true
            if isNonStarter { needsReordering = true }
        }
    }

    /// The state machine: one mapped scalar with the UTF-16 span of the original scalar it
    /// came from.
    @inline(__always)
    private mutating func take(_ role: ScalarRole, value: Int32, from: Int, to: Int,
                               emit: ScalarEmit) {
        switch role {
        case .word:
            if isOpen {
                if isSingle {
                    finish(emit: emit)
                } else {
                    // Rule 3: an apostrophe between two word characters is dropped.
                    apostrophePending = false
                }
            }
            if !isOpen {
                isOpen = true
                isSingle = false
                start = from
            }
            append(value)
            end = to
        case .ownWord:
            finish(emit: emit)
            isOpen = true
            isSingle = true
            start = from
            append(value)
            end = to
        case .transparent:
            // Marks after a word character belong to it (highlighting must not cut "e\u{301}").
            if isOpen && !apostrophePending { end = to }
        case .apostrophe:
            if isOpen && !isSingle && !apostrophePending {
                apostrophePending = true
            } else {
                finish(emit: emit)
            }
        case .separator:
            finish(emit: emit)
        }
    }

    @inline(__always)
    private mutating func append(_ value: Int32) {
        if count < Self.wordCapacity {
            word[count] = value
            count += 1
        }
    }

    /// Emits the open word, if any: canonical order, NFC, truncation (rules 2, 5, 6).
    mutating func finish(emit: ScalarEmit) {
        guard isOpen else { return }
        var length = count
        if needsReordering { reorder(length) }
        if needsComposition {
            let composed = utf8proc_normalize_utf32(word, length, ScalarMapping.composeOptions)
            // Composition only shortens; a negative result would mean invalid options.
            if composed > 0 { length = composed }
        }
        length = min(length, Analyzer.maximumWordLength)
        emit(UnsafePointer(word), length, start..<end)
        isOpen = false
        isSingle = false
        apostrophePending = false
        needsComposition = false
        needsReordering = false
        count = 0
    }

    /// Canonical ordering: a stable sort by combining class within each run of non-starters.
    /// Runs are tiny (marks are dropped), so insertion sort is the right tool.
    private func reorder(_ length: Int) {
        var i = 1
        while i < length {
            let cc = ScalarMapping.combiningClass(word[i])
            var j = i
            // A starter (class 0) never moves and nothing moves past it: 0 > cc is false.
            while cc != 0, j > 0, ScalarMapping.combiningClass(word[j - 1]) > cc {
                word.swapAt(j, j - 1)
                j -= 1
            }
            i += 1
        }
    }

    /// UTF-8 encodes the first `length` scalars of `scalars` into a `String`.
    private static func makeTerm(_ scalars: UnsafePointer<Int32>, _ length: Int) -> String {
        String(unsafeUninitializedCapacity: utf8Count(scalars, length)) { out in
            encodeUTF8(scalars, length, into: out.baseAddress!)
        }
    }

    /// Appends the UTF-8 of the first `length` scalars of `scalars` to `bytes`.
    private static func appendUTF8(_ scalars: UnsafePointer<Int32>, _ length: Int, to bytes: inout [UInt8]) {
        let count = utf8Count(scalars, length)
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: count))
        bytes.withUnsafeMutableBufferPointer { _ = encodeUTF8(scalars, length, into: $0.baseAddress! + start) }
    }

    private static func utf8Count(_ scalars: UnsafePointer<Int32>, _ length: Int) -> Int {
        var byteCount = 0
        for i in 0..<length {
            let v = scalars[i]
            byteCount += v < 0x80 ? 1 : v < 0x800 ? 2 : v < 0x10000 ? 3 : 4
        }
        return byteCount
    }

    /// Writes the UTF-8 of the scalars at `out` (room for ``utf8Count(_:_:)`` bytes); returns the
    /// bytes written.
    private static func encodeUTF8(_ scalars: UnsafePointer<Int32>, _ length: Int, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var o = 0
        for i in 0..<length {
            let v = UInt32(bitPattern: scalars[i])
            if v < 0x80 {
                out[o] = UInt8(v)
                o += 1
            } else if v < 0x800 {
                out[o] = UInt8(0xC0 | v >> 6)
                out[o + 1] = UInt8(0x80 | v & 0x3F)
                o += 2
            } else if v < 0x10000 {
                out[o] = UInt8(0xE0 | v >> 12)
                out[o + 1] = UInt8(0x80 | v >> 6 & 0x3F)
                out[o + 2] = UInt8(0x80 | v & 0x3F)
                o += 3
            } else {
                out[o] = UInt8(0xF0 | v >> 18)
                out[o + 1] = UInt8(0x80 | v >> 12 & 0x3F)
                out[o + 2] = UInt8(0x80 | v >> 6 & 0x3F)
                out[o + 3] = UInt8(0x80 | v & 0x3F)
                o += 4
            }
        }
        return o
    }
}

extension UnsafeMutablePointer {
    @inline(__always)
    fileprivate func swapAt(_ i: Int, _ j: Int) {
        let t = self[i]
        self[i] = self[j]
        self[j] = t
    }
}
