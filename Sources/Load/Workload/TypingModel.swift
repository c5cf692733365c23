import Catalog

/// How a simulated person types one text into a search field: one character at a time, with a
/// pause before each key, occasional typos that are noticed and backspaced away, occasional
/// hesitations (a backspace and the same character again), and a submit at the end — or not.
///
/// Every keystroke changes the field's text by exactly one character (added or removed), and the
/// last keystroke leaves exactly the intended text (cut to ``maximumLength`` characters).
///
/// Per intended character, in order:
/// 1. with probability ``typoRate``: a wrong key (a QWERTY neighbour of a letter or digit, else a
///    random letter), then 0–2 more correct characters before the person notices, then that many
///    backspaces plus one — the wrong key is gone;
/// 2. the right character;
/// 3. with probability ``backspaceRate`` (not after the last one): a backspace and the same
///    character again.
/// At most one typo and one hesitation per position, so any rates in 0...1 terminate: a plan has
/// at most 8 keystrokes per character. Pauses are uniform in ``keyDelay``; the first keystroke has
/// none (the session starts with it); submit (probability ``submitRate``) comes one pause after the
/// last key.
///
/// ```swift
/// var random = SplitMix64(seed: 1)
/// let plan = TypingModel(typoRate: 0.1).plan(typing: "red shoes", random: &random)
/// plan.keystrokes.map(\.text)   // for example ["r", "re", "rw", "r", "re", "red", "red ", …, "red shoes"]
/// plan.submits                  // true half of the time (submitRate 0.5)
/// ```
public struct TypingModel: Sendable, Equatable {
    /// The pause before each keystroke (and before submit), uniform in this range.
    public var keyDelay: ClosedRange<Duration>
    /// Probability, per intended character, of first hitting a wrong key.
    public var typoRate: Double
    /// Probability, per intended character, of deleting it and typing it again.
    public var backspaceRate: Double
    /// Probability that the session ends with a Search.
    public var submitRate: Double
    /// People type the start of long titles, then pick a suggestion: longer texts are cut here.
    public var maximumLength: Int

    public init(keyDelay: ClosedRange<Duration> = .milliseconds(80) ... .milliseconds(250), typoRate: Double = 0.03,
                backspaceRate: Double = 0.02, submitRate: Double = 0.5, maximumLength: Int = 40) {
        self.keyDelay = keyDelay
        self.typoRate = typoRate
        self.backspaceRate = backspaceRate
        self.submitRate = submitRate
        self.maximumLength = maximumLength
    }

    /// The keystrokes of one session typing `text`. O(length of text).
    public func plan(typing text: String, random: inout SplitMix64) -> SessionPlan {
        let intended = Array(text.prefix(maximumLength))
        var typed: [Character] = []
        var keystrokes: [SessionPlan.Keystroke] = []
        keystrokes.reserveCapacity(intended.count + 4)
        func key(_ edit: SessionPlan.Edit) {
            keystrokes.append(.init(text: String(typed), delay: keystrokes.isEmpty ? 0 : pause(&random), edit: edit))
        }
        for position in intended.indices {
            if random.uniform() < typoRate {
                typed.append(Self.wrongKey(for: intended[position], random: &random))
                key(.typo)
                let unnoticed = min(random.below(3), intended.count - position - 1)
                for next in 0..<unnoticed {
                    typed.append(intended[position + 1 + next])
                    key(.type)
                }
                for _ in 0...unnoticed {
                    typed.removeLast()
                    key(.backspace)
                }
            }
            typed.append(intended[position])
            key(.type)
            if position + 1 < intended.count, random.uniform() < backspaceRate {
                typed.removeLast()
                key(.backspace)
                typed.append(intended[position])
                key(.type)
            }
        }
        let submits = !intended.isEmpty && random.uniform() < submitRate
        return SessionPlan(text: String(intended), keystrokes: keystrokes, submitDelay: submits ? pause(&random) : nil)
    }

    /// Requests per session on average (keystrokes plus submits), estimated from `samples` plans
    /// of texts drawn from `source` with their own generator; for turning a request rate into a
    /// session rate.
    public func expectedRequestsPerSession(_ source: TextSource, samples: Int = 2000, seed: UInt64 = 0x5EED) -> Double {
        var random = SplitMix64(seed: seed)
        var total = 0
        for _ in 0..<samples {
            let plan = self.plan(typing: source.pick(&random), random: &random)
            total += plan.keystrokes.count + (plan.submits ? 1 : 0)
        }
        return max(1, Double(total) / Double(max(1, samples)))
    }

    private func pause(_ random: inout SplitMix64) -> UInt64 {
        let low = keyDelay.lowerBound.wholeNanoseconds, high = keyDelay.upperBound.wholeNanoseconds
        return low + UInt64(random.uniform() * Double(high - low))
    }

    /// A neighbouring key on a QWERTY keyboard, keeping case; a random letter for anything else.
    public static func wrongKey(for character: Character, random: inout SplitMix64) -> Character {
        let lower = Character(character.lowercased())
        if let neighbours = neighbours[lower] {
            let pick = neighbours[random.below(neighbours.count)]
            return character.isUppercase ? Character(pick.uppercased()) : pick
        }
        var letter: Character
        repeat {
            letter = Character(Unicode.Scalar(UInt8(97 + random.below(26))))
        } while letter == lower
        return letter
    }

    private static let neighbours: [Character: [Character]] = {
        let rows = ["1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm"]
        var table: [Character: [Character]] = [:]
        let grid = rows.map(Array.init)
        for (row, keys) in grid.enumerated() {
            for (column, key) in keys.enumerated() {
                var near: [Character] = []
                if column > 0 { near.append(keys[column - 1]) }
                if column + 1 < keys.count { near.append(keys[column + 1]) }
                // Keyboard rows are staggered: the keys above and below are at about the same column.
                for other in [row - 1, row + 1] where grid.indices.contains(other) && other > 0 && row > 0 {
                    if grid[other].indices.contains(column) { near.append(grid[other][column]) }
                }
                table[key] = near
            }
        }
        return table
    }()
}

/// The keystrokes of one session, as ``TypingModel/plan(typing:random:)`` made them.
///
/// ```swift
/// var random = SplitMix64(seed: 3)
/// let plan = TypingModel(typoRate: 0, backspaceRate: 0, submitRate: 1).plan(typing: "knife", random: &random)
/// plan.keystrokes.map(\.text)   // ["k", "kn", "kni", "knif", "knife"]
/// plan.requestCount            // 6: five Suggests and the Search
/// ```
public struct SessionPlan: Sendable, Equatable {
    /// What a keystroke did to the field.
    public enum Edit: Sendable, Equatable {
        /// The intended next character.
        case type
        /// A wrong character (to be backspaced away).
        case typo
        /// The last character deleted.
        case backspace
    }

    /// One key press and the Suggest it sends.
    public struct Keystroke: Sendable, Equatable {
        /// The field's text after the keystroke (what its Suggest sends).
        public var text: String
        /// Nanoseconds since the previous keystroke (0 for the first).
        public var delay: UInt64
        public var edit: Edit
    }

    /// The intended text: the last keystroke's text and what a submit searches.
    public var text: String
    public var keystrokes: [Keystroke]
    /// Nanoseconds from the last keystroke to the Search, or nil when the person does not submit.
    public var submitDelay: UInt64?

    public var submits: Bool { submitDelay != nil }

    /// Suggest calls plus the Search, if any.
    public var requestCount: Int { keystrokes.count + (submits ? 1 : 0) }
}

extension Duration {
    /// Whole nanoseconds, negative durations as 0 (a delay cannot be negative).
    var wholeNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 || attoseconds < 0 { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
