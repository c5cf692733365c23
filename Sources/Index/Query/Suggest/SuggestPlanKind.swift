/// Which plan proved a Suggest answer (``SuggestAnswer/plan``). Every plan answers exactly, so
/// the plan shows only as time: a node counts them (`typeahead_suggest_plan_total{plan}`) so that
/// an operator sees when keystrokes leave the shortcuts for the exact walks. A soak's stall was
/// exactly that: "li" falling from the trie to the general plan on one shard after an update.
public enum SuggestPlanKind: String, Sendable, CaseIterable {
    /// One partial word, answered from a heavy trie node's lists (``TriePlan``).
    case trie
    /// The query without typos filled every section (``TypoFreePlan``).
    case typoFree = "typo_free"
    /// No words: the best entries (``AllEntriesPlan``).
    case allEntries = "all_entries"
    /// One partial word, exactly (``PartialWordPlan``).
    case partialWord = "partial_word"
    /// Complete words or tokens, exactly (``GeneralPlan``).
    case general
}
