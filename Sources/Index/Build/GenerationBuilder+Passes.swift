import Foundation
import Storage

/// What the documents pass learns that the terms pass needs.
struct WrittenDocuments {
    /// The position (``BuildTerms``) of each document's first title word; `.max` if it has none.
    var firstWords: [UInt32] = []
    /// (term number << 32 | document) of each alias word that spells a title word of the document
    /// another way: a name term the document does not offer as a completion (``CompletionSource``).
    var variants = Set<UInt64>()
}

extension GenerationBuilder {
    /// Pass 2: the records in rank order numbered 0, 1, 2, … and written to `docs`, their forward
    /// lists to `forward`, their postings to `pairs`, their ids and title keys to `keys`.
    func writeDocuments(_ records: SortedRecords, count: Int, terms: BuildTerms, pairs: inout PostingPairs,
                        keys: KeySorts,
                        into environment: Environment, schema: Schema) throws -> WrittenDocuments {
        var documents = WrittenDocuments()
        documents.firstWords.reserveCapacity(count)
        var docnum: UInt32 = 0
        var titleKey = ByteWriter(capacity: TitleKey.maximumTitleBytes + 5)
        var chunk = ByteWriter(capacity: 1 << 20)
        var forwardOrdinals: [UInt32] = []
        var forwardStarts = [0]
        var ordinals: [UInt32] = []
        func writeChunk(_ txn: borrowing WriteTransaction) throws {
            guard let database = schema.forward, forwardStarts.count > 1 else { return }
            chunk.removeAll()
            ForwardIndex.encodeChunk(count: forwardStarts.count - 1, into: &chunk) { forwardOrdinals[forwardStarts[$0]..<forwardStarts[$0 + 1]] }
            try txn.put(database, UInt32((Int(docnum) - 1) / ForwardIndex.chunkSize), chunk.bytes, flags: .append)
            forwardOrdinals.removeAll(keepingCapacity: true)
            forwardStarts.removeAll(keepingCapacity: true)
            forwardStarts.append(0)
        }
        try Self.writeInSteps(environment) { txn in
            guard let (key, value) = try records.next() else { return nil }
            let record = RankedRecord(key: key, value: value)
            try txn.put(schema.docs, schema.documentKey(docnum), record.record, flags: .append)
            titleKey.removeAll()
            if format.titles { TitleKey.make(sortTitle: record.sortTitle, docnum: docnum, into: &titleKey) }
            titleKey.bytes.withUnsafeBytes { keys.add(id: record.id, docnum: docnum, titleKey: $0) }
            documents.firstWords.append(record.firstWord.map { terms.positions[Int($0)] } ?? .max)
            ordinals.removeAll(keepingCapacity: true)
            for number in record.list(0) {
                let position = Int(terms.positions[Int(number)])
                try pairs.append(term: position, document: docnum, description: false)
                if terms.ordinals[position] != .max { ordinals.append(terms.ordinals[position]) }
            }
            for number in record.list(1) { try pairs.append(term: Int(terms.positions[Int(number)]), document: docnum, description: true) }
            for number in record.list(2) { documents.variants.insert(UInt64(number) << 32 | UInt64(docnum)) }
            for number in record.list(3) { try pairs.append(term: Int(terms.positions[Int(number)]), document: docnum, description: false) }
            if schema.forward != nil {
                ordinals.sort()
                var previous: UInt32?
                for ordinal in ordinals where ordinal != previous {
                    forwardOrdinals.append(ordinal)
                    previous = ordinal
                }
                forwardStarts.append(forwardOrdinals.count)
            }
            docnum += 1
            if forwardStarts.count - 1 == ForwardIndex.chunkSize { try writeChunk(txn) }
            return record.record.count
        }
        // The last, partial chunk of forward lists.
        try environment.write { txn in try writeChunk(txn) }
        return documents
    }

    /// Pass 3b: `ids` and `titles` in key order, from their sorts. A repeated id fails the build.
    func writeKeys(ids byID: SortedRecords, titles byTitle: SortedRecords, into environment: Environment, schema: Schema) throws {
        var previous: [UInt8] = []   // the last id written; none is empty
        try Self.writeInSteps(environment) { txn in
            guard let (key, value) = try byID.next() else { return nil }
            if previous.elementsEqual(key) {
                throw IndexError.invalidArgument("duplicate id \"\(String(decoding: key.prefix(64), as: UTF8.self))\" in the entries to index")
            }
            previous.removeAll(keepingCapacity: true)
            previous.append(contentsOf: key)
            try txn.put(schema.ids, key, value.loadUnaligned(as: UInt32.self), flags: .append)
            return key.count + 4
        }
        guard let titleIndex = schema.titles else { return }
        try Self.writeInSteps(environment) { txn in
            guard let (key, _) = try byTitle.next() else { return nil }
            try txn.put(titleIndex, key, EmptyValue(), flags: .append)
            return key.count
        }
    }

    /// Pass 3a: every term in byte order with its postings, `name_ordinals`, the trie's heavy
    /// nodes, `completion_variants` and the packed term trie. Returns the number of heavy nodes.
    func writeTerms(_ terms: BuildTerms, pairs: inout PostingPairs, documents: WrittenDocuments,
                    into environment: Environment, schema: Schema, clock: inout StageClock) throws -> Int {
        var nodes: [([UInt8], HeavyNode)] = []
        let firstWords = documents.firstWords
        // A document's first title word starts with the term being added (at position `adding`)
        // when the word's position is in `adding..<prefixEnds[adding]`: one load a posting, where
        // comparing the two words' bytes was three loads at random places (cities: 682,000 terms).
        let prefixEnds = terms.prefixEnds()
        var adding = 0
        var trie = TrieBuilder(parameters: parameters, firstWordStarts: { document, term in
            assert(terms.term(adding) == term, "the trie asks about the term being added")
            let position = Int(firstWords[Int(document)])   // UInt32.max: no title word
            return position >= adding && position < Int(prefixEnds[adding])
        }) { nodes.append(($0, $1)) }
        var words: [[UInt8]] = []
        // Each word's first name posting, for the trie's best documents.
        var bests: [UInt32] = []
        var writer = ByteWriter(capacity: 4096)
        let variants = documents.variants
        try Self.writeInSteps(environment) { txn in
            guard let position = try pairs.next() else { return nil }
            let term = terms.term(position)
            writer.removeAll()
            PostingList.encode(name: pairs.name, description: pairs.description, into: &writer)
            try txn.put(schema.terms, term, writer.bytes, flags: .append)
            let ordinal = terms.ordinals[position]
            if let database = schema.nameOrdinals, ordinal != .max, ordinal % ForwardIndex.ordinalInterval == 0 {
                try txn.put(database, term, ordinal, flags: .append)
            }
            if term[0] >= TermWalk.firstWordByte {
                words.append(term)
                if format.trieBests { bests.append(pairs.name.first ?? .max) }
                if !pairs.name.isEmpty {
                    // A word's best entry is its first document that offers it as a completion
                    // (generations without recorded variants listed the first document: so do
                    // the tests' builds of that layout).
                    let number = UInt64(terms.numbers[position]) << 32
                    let offering = variants.isEmpty || schema.completionVariants == nil ? pairs.name.first
                        : pairs.name.first { !variants.contains(number | UInt64($0)) }
                    adding = position
                    try trie.add(term: term, postings: pairs.name, completionBest: offering)
                }
            }
            return term.count + writer.bytes.count
        }
        try trie.finish()
        try environment.write { txn in
            if let database = schema.completionVariants {
                var listed = variants.map { (term: terms.vocabulary.term(Int($0 >> 32)), doc: UInt32(truncatingIfNeeded: $0)) }
                listed.sort { $0.term != $1.term ? $0.term.lexicographicallyPrecedes($1.term) : $0.doc < $1.doc }
                for pair in listed { try txn.put(database, pair.term, pair.doc.bigEndianBytes) }
            }
        }
        clock.mark("write terms and trie")
        let packed = PackedTrie.build(words, bests: format.trieBests ? bests : nil, indexedFrom: format.indexedChildren)
        words = []
        bests = []
        try environment.write { txn in try txn.put(schema.termTrie, PackedTrie.key, packed) }
        clock.mark("pack term trie")
        nodes.sort { $0.0.lexicographicallyPrecedes($1.0) }
        var index = 0
        try Self.writeInSteps(environment) { txn in
            guard index < nodes.count else { return nil }
            let (prefix, node) = nodes[index]
            index += 1
            writer.removeAll()
            node.encode(into: &writer, prefixLength: prefix.count)
            try txn.put(schema.trie, prefix, writer.bytes, flags: .append)
            return prefix.count + writer.bytes.count
        }
        return nodes.count
    }

    /// Calls `step` in write transactions of about ``commitBytes`` each until it returns nil;
    /// `step` writes one thing and returns how many bytes.
    static func writeInSteps(_ environment: Environment, _ step: (borrowing WriteTransaction) throws -> Int?) throws {
        var finished = false
        while !finished {
            try environment.write { txn in
                var written = 0
                while written < commitBytes {
                    guard let bytes = try step(txn) else {
                        finished = true
                        return
                    }
                    written += bytes
                }
            }
        }
    }
}
