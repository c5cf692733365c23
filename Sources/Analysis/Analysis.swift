// # The Analysis module
//
// One definition of text analysis, used by indexing and by querying alike: if the two sides
// disagreed by a single scalar, a title would be indexed under words no query can produce.
// `Analyzer` turns text into *words* (analysed terms plus where they came from), `ParsedQuery`
// splits a search field into complete words and the word being typed, and `EditDistance` is the
// reference definition of typo tolerance on analysed words.
//
// This module is the only importer of `CUTF8Proc` (libutf8proc 2.8, Unicode 15.0); no C type
// appears in its public API.
//
// ## Rules
//
// 1. Input is a Swift `String`, so it is already valid Unicode. Analysis walks the *original*
//    text one Unicode scalar at a time and remembers each scalar's UTF-16 offset, so that every
//    word can say which part of the original text it came from (`Word.utf16Range`, for
//    highlighting and for building completions).
// 2. Each original scalar is mapped on its own with compatibility decomposition and full case
//    folding (`utf8proc_decompose_char` with COMPAT | CASEFOLD | DECOMPOSE | IGNORE), which also
//    removes default-ignorable scalars (soft hyphen, ZWJ, ZWNJ, variation selectors). Of the
//    result, nonspacing and enclosing marks (Mn, Me) are dropped. utf8proc's STRIPMARK is *not*
//    used because it strips spacing marks (Mc) as well, and those are vowel signs in Indic
//    scripts. A resulting scalar is a *word character* if it is a letter (L*), a number (N*) or
//    a spacing mark (Mc); any other scalar separates words. Dropped marks and ignorables are
//    transparent: they neither split a word nor start one, so "co\u{AD}operate" is one word.
//    Each word is then canonically reordered and recomposed (`utf8proc_normalize_utf32` with
//    COMPOSE | STABLE), so terms are NFC and, overall, NFKC-casefolded without marks:
//    "Zürich" → "zurich", "Ｃafé" → "cafe", "ﬁsh" → "fish", "Straße" → "strasse",
//    "ΟΔΥΣΣΕΥΣ" → "οδυσσευσ" (final sigma folds to σ), "Київ" → "киів", "²" → "2",
//    "İstanbul" → "istanbul", "한국어" → "한국어" (composed Hangul).
//    Consequences worth knowing, identical on the index and the query side so matching still
//    works: Indic nonspacing vowel signs and viramas are Mn and disappear ("हिन्दी" → "हिनदी",
//    the Mc vowel signs ि and ी stay); Japanese voicing marks are Mn after decomposition, so
//    "ガ" → "カ", just as "é" → "e".
// 3. Apostrophes — U+0027, U+2019 and U+02BC (after mapping, so the fullwidth U+FF07 counts
//    too) — directly between two word characters of the same word are dropped and join it:
//    "O'Brien" → "obrien", "don’t" → "dont". Anywhere else (start or end of a word, two in a
//    row, next to a separator or an ideograph or kana) an apostrophe separates. U+02BC is a
//    letter (Lm) by category but is treated as an apostrophe, never as a word character.
// 4. Scripts written without spaces between words: every Han ideograph (CJK Unified Ideographs
//    and Extension A, the Supplementary and Tertiary Ideographic Planes with Extensions B–H,
//    Compatibility Ideographs, and the Han-script marks 々 〆 〇 〡–〩 〸–〻), every Hiragana and
//    every Katakana character (including the kana supplement blocks; halfwidth katakana become
//    fullwidth in rule 2) is a word of its own: "東京都" → ["東", "京", "都"]. The prolonged
//    sound mark ー (U+30FC, Lm) is in the Katakana block and therefore is its own word too:
//    "東京タワー" → ["東", "京", "タ", "ワ", "ー"]. One rule for the whole block is simpler than
//    attaching ー to the previous kana, and matching is unaffected because queries are split
//    the same way. Hangul is written with spaces, so Hangul syllables form ordinary words.
//    Limitation: Thai, Lao, Khmer, Myanmar (and other scripts without spaces that are not
//    listed here) are not segmented; a run of them is one word.
// 5. A word longer than `Analyzer.maximumWordLength` (32) scalars after recomposition is
//    truncated to its first 32 scalars. This bounds the depth of the on-disk trie and the size
//    of every key. Query words are truncated the same way, so a query word that is a prefix of
//    a long indexed word still is a prefix of its truncated form. The word's `utf16Range`
//    still covers the whole original word.
// 6. Output terms are Swift `String`s in NFC, and never empty.
//
// Source layout:
// - `Analyzer.swift`:      the public entry points.
// - `Word.swift`:          `Word` and `ParsedQuery`.
// - `WordSplitter.swift`:  the scanner that implements rules 1–6 over UTF-8 bytes.
// - `ScalarMapping.swift`: rule 2 and 4 classification of one scalar, via utf8proc.
// - `EditDistance.swift`:  the reference edit distances on analysed words.
