import Analysis
import Caching
import Catalog
import Foundation
import Storage
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Tuning of the on-disk trie; results never depend on it, only speed and size do.
public struct IndexParameters: Sendable, Hashable {
    /// Documents kept per list of a heavy trie node.
    public var listSize: Int
    /// A prefix with more postings below it than this gets a heavy node.
    public var heavyThreshold: Int
    /// Attribute keys whose values are tokens (filters) and token suggestions, as
    /// ``SearchToken/Kind`` names ("category" is reserved). Unlike the trie tuning, these change
    /// answers: a generation keeps them (``MetaKey/filterableAttributes``), and upserts and merges
    /// index them too.
    public var filterableAttributes: [String]
    public init(listSize: Int = 32, heavyThreshold: Int = 32, filterableAttributes: [String] = []) {
        self.listSize = listSize
        self.heavyThreshold = heavyThreshold
        self.filterableAttributes = filterableAttributes
    }
}

/// A generation as an operator sees it.
public struct GenerationInfo: Sendable, Hashable {
    public enum State: String, Sendable, Hashable {
        /// Serving queries.
        case current
        /// The one before; `rollback()` makes it current again.
        case previous
        /// Built and complete, not yet activated.
        case staged
    }
    public var number: Int
    public var state: State
    public var entries: Int
    public var bytes: Int
    /// Figures from the build that made it, when this process built it.
    public var build: BuildStatistics?
    /// The label it was built with (a reindex's catalog fingerprint), if any.
    public var label: String? = nil
}

/// A generation being uploaded in batches (see ``Shard/beginUpload(generation:label:parameters:)``).
public struct UploadInfo: Sendable, Hashable {
    public var generation: Int
    public var label: String
    /// Batches received so far: the next one to send is numbered this.
    public var batches: Int
    public var entries: Int
    public var bytes: Int
}

/// What beginning an upload found.
public enum UploadStart: Sendable, Hashable {
    /// A new, empty upload.
    case started(UploadInfo)
    /// The same generation and label were being uploaded: continue with batch `batches`.
    case resumed(UploadInfo)
    /// The generation is already built from this label: nothing to upload.
    case built(GenerationInfo)
}

/// One shard of the catalog: a directory of index generations, one of which serves.
///
/// ```swift
/// let shard = try Shard(directory: "/var/lib/typeahead/shard-0")
/// try shard.build(from: entries)                       // a new generation, activated
/// let response = try shard.suggest(SuggestRequest(text: "red sh"))
/// try shard.upsert([changedEntry])                     // visible to the next query
/// ```
///
/// Reads take no lock beyond a reference grab of the current generation and run in their own LMDB
/// read transaction (MVCC: they never wait for writes). Writes are serialised by LMDB. Building,
/// activating and dropping generations are serialised across processes by a lock file.
/// Complexity: see ``SuggestEngine`` and ``SearchEngine``.
public final class Shard: Sendable {
    public let directory: String
    let layout: GenerationDirectory
    private let readOnly: Bool
    private let analyzer = Analyzer()
    let state: Mutex<Serving?>
    /// The merge in progress, if any, with the writes made since its snapshot (see
    /// ``beginMerge()``).
    let merging = Mutex<MergeLog?>(nil)

    /// The generation that serves, and the one before it once a read asked for it. A coordinator
    /// pins each call to one generation, so for a while after an activation (until every shard of
    /// the cluster serves the new one) calls keep naming the previous generation: holding it here
    /// keeps its environment, memory map and caches open across those calls instead of opening
    /// and closing it per call (and, being the rollback target, it is also what a rollback makes
    /// current again at once). Once no call has named it for a while, the node lets it go
    /// (``releasePreviousGeneration(idleFor:)``); a later call or rollback opens it again.
    struct Serving {
        var current: Generation
        /// The manifest's previous generation, when there is one.
        var previousNumber: Int?
        /// Its open generation, once a read needed it.
        var previous: Generation?

        /// The serving set after a switch to `current` (with `previousNumber` before it), keeping
        /// whichever generation this one already had open.
        init(current: Generation, previousNumber: Int?, keeping old: Serving?) {
            self.current = current
            self.previousNumber = previousNumber
            previous = [old?.current, old?.previous].compactMap { $0 }.first { $0.number == previousNumber && previousNumber != nil }
            // The generation that served until now counts as just read: the switch's pinned
            // calls come next.
            previous?.markRead()
        }
    }

    /// Whether a build analyses the entries on every core (`typeahead index`, tests) or on the
    /// calling thread alone (a serving node, which builds on a low-priority thread so that its
    /// answers keep their pace: the build then takes longer, serving does not slow down).
    public let parallelBuilds: Bool

    /// Bytes a build holds in memory before it spills sorted runs to disk beside the generation it
    /// writes (``defaultBuildMemory``). Set it lower on a node short of memory, higher to spare a big
    /// build the disk; the generation written is the same.
    public let buildMemory: Int

    /// 512 MB: a build's peak stays under a gigabyte whatever the catalog's size.
    public static let defaultBuildMemory = GenerationBuilder.defaultMemoryBudget

    /// Opens (creating if needed, unless `readOnly`) a shard directory. A writable open removes
    /// generations whose build never finished.
    public init(directory: String, readOnly: Bool = false, parallelBuilds: Bool = true, buildMemory: Int = Shard.defaultBuildMemory) throws {
        self.directory = directory
        self.readOnly = readOnly
        self.parallelBuilds = parallelBuilds
        self.buildMemory = buildMemory
        layout = GenerationDirectory(path: directory)
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard !readOnly else { throw IndexError(.notFound, "no shard at \(directory)") }
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw IndexError(.internal, "cannot create \(directory): \(error)")
            }
        } else if !isDirectory.boolValue {
            throw IndexError(.invalidArgument, "\(directory) is not a directory")
        }
        state = Mutex(nil)
        if !readOnly {
            try layout.withLock {
                try removeIncompleteGenerations()
                // Merges that a crash or a failure left unfinished, and data that finished ones
                // replaced. (Only here, at open: later, a merge of this process may be under way.)
                for number in layout.generationsOnDisk() { layout.removeStaleRevisions(number) }
            }
        }
        try reload()
    }

    /// Re-reads the manifest and switches to the generation it names.
    public func reload() throws {
        let manifest = try layout.readManifest()
        guard let number = manifest.current else {
            state.withLock { $0 = nil }
            return
        }
        let serving = state.withLock { $0 }
        // A merge made by another process shows as a new revision of the same number.
        let sameData = serving.map { $0.current.number == number && $0.current.revision == layout.revision(number) } ?? false
        if let serving, sameData, serving.previousNumber == manifest.previous { return }
        let generation = sameData ? serving!.current : try open(number)
        serve(generation, previous: manifest.previous)
    }

    /// Switches reads to `generation`, `previous` being the manifest's previous one.
    private func serve(_ generation: Generation, previous: Int?) {
        state.withLock { $0 = Serving(current: generation, previousNumber: previous, keeping: $0) }
    }

    /// The generation, opened once per process however many `Shard`s name it.
    private func open(_ number: Int) throws -> Generation {
        let revision = layout.revision(number)
        return try Generation.shared(number: number, revision: revision, path: layout.environmentPath(number, revision: revision),
                                     readOnly: readOnly)
    }

    /// Whether the generations this process opens have their memory maps populated in the
    /// background when they open (``prefault()``; default true): the first queries after a start
    /// or a generation switch then find the index mapped, at the cost of reading all of it at
    /// open. `typeahead node --no-prefault` turns it off where memory is tight.
    public static var prefaultsOnOpen: Bool {
        get { Generation.prefaultsOnOpen.load(ordering: .relaxed) }
        set { Generation.prefaultsOnOpen.store(newValue, ordering: .relaxed) }
    }

    /// Maps the serving generation's pages into this process now (a generation is populated in
    /// the background when it opens; this waits for a pass of its own): for a benchmark that
    /// measures a node past its warm-up. Returns the bytes populated.
    @discardableResult
    public func prefault() throws -> Int { try current().prefault() }

    func current() throws -> Generation {
        guard let generation = state.withLock({ $0?.current }) else {
            throw IndexError(.failedPrecondition, "shard \(directory) has no active generation; build one first")
        }
        return generation
    }

    /// The attribute keys the current generation declared filterable (sorted; empty without a
    /// generation, or for one built without them): its token kinds besides "category".
    public func filterableAttributes() throws -> [String] { try current().filterable }

    /// The number of the generation that serves, if any.
    public var currentGeneration: Int? { state.withLock { $0?.current.number } }

    /// The highest generation number this shard has or had (0 for a new shard): a new generation
    /// must be numbered above it.
    public func highestGeneration() throws -> Int {
        let manifest = try layout.readManifest()
        return (layout.generationsOnDisk() + [manifest.current ?? 0, manifest.previous ?? 0]).max() ?? 0
    }

    /// The generation a query reads: the current one, or a named complete one (so that every
    /// shard of a cluster can be asked for the same generation during a switch).
    func generation(_ number: Int?) throws -> Generation {
        guard let serving = state.withLock({ $0 }) else { return try current() }
        guard let number, number != serving.current.number else { return serving.current }
        if number == serving.previousNumber, let previous = serving.previous {
            previous.markRead()
            return previous
        }
        guard layout.isComplete(number) else {
            // Reads may be unauthenticated: the message names no path of this machine.
            throw IndexError(.notFound, "this shard has no complete generation \(number) (current is \(serving.current.number))")
        }
        let opened = try open(number)
        opened.markRead()
        if number == serving.previousNumber {
            state.withLock { state in
                if state?.previousNumber == number, state?.previous == nil { state?.previous = opened }
            }
        }
        return opened
    }

    /// Lets go of the previous generation once no read has named it for `idle` (a switch's
    /// pinned calls are over), so that its caches, memory map and LMDB buffers stop taking memory
    /// until the next activation: `scripts/soak.sh` saw every node hold ~20 MiB more for good after
    /// a reindex. Reads that name it later (a late pinned call, a rollback) open it again, which
    /// takes milliseconds. True when it was let go. Called by the node's one-second timer.
    @discardableResult
    public func releasePreviousGeneration(idleFor idle: Duration) -> Bool {
        let now = Generation.readClock()
        let limit = UInt64(idle.components.seconds) * 1_000_000_000 + UInt64(idle.components.attoseconds / 1_000_000_000)
        return state.withLock { state in
            guard let previous = state?.previous, now &- previous.lastRead.load(ordering: .relaxed) > limit else { return false }
            state?.previous = nil
            return true
        }
    }

    /// Whether the previous generation is held open (see ``releasePreviousGeneration(idleFor:)``).
    public var holdsPreviousGeneration: Bool { state.withLock { $0?.previous != nil } }

    // MARK: Queries

    /// Generation numbers run from 1 to this (a billion reindexes; directories `gen-000001` …).
    /// A caller's number outside the range is refused, never clamped into it: a number at the top
    /// would leave no next one, and `highest + 1` must not overflow.
    public static let maximumGenerationNumber = 999_999_999

    /// Refuses a generation number outside 1...``maximumGenerationNumber`` (INVALID_ARGUMENT).
    public static func checkGenerationNumber(_ number: Int) throws(IndexError) {
        guard (1...maximumGenerationNumber).contains(number) else {
            throw .invalidArgument("generation must be between 1 and \(maximumGenerationNumber), got \(number)")
        }
    }

    /// Suggestions for a keystroke, from the current generation or the one named.
    ///
    /// - Parameters:
    ///   - form: a client's presented answer (the default), or this shard's part of a cluster's
    ///     answer (see ``ResponseForm``).
    ///   - shouldStop: polled while candidates are read; returning true abandons the query with
    ///     ``IndexError/Code/cancelled`` (a passed deadline, a client that went away).
    public func suggest(_ request: SuggestRequest, form: ResponseForm = .presented, generation number: Int? = nil,
                        shouldStop: (@Sendable () -> Bool)? = nil) throws -> SuggestResponse {
        try suggest(request, form: form, generation: number, shouldStop: shouldStop) { try $0.materialized() }
    }

    /// What a read of the current generation (or the one named) would see, as two numbers: equal
    /// versions mean equal answers, so a server may key a cache of answers by it. Every write
    /// (an upsert, a delete, in this process or another) commits a transaction and changes it; an
    /// activation or rollback changes the generation.
    ///
    /// A read made after this call sees this version or a later one; an answer computed for a
    /// version is therefore never older than it.
    public func readVersion(generation number: Int? = nil) throws -> ReadVersion {
        if let number { try Self.checkGenerationNumber(number) }
        let generation = try generation(number)
        return ReadVersion(generation: generation.number, revision: generation.revision,
                           transaction: generation.environment.lastCommittedTransaction)
    }

    /// The same answer, handed to `answer` inside the read transaction that found it, with its hits
    /// viewed in the memory map: how a server encodes a response without materialising it. The
    /// ``SuggestAnswer`` and its hits are valid only inside `answer`.
    ///
    /// ```swift
    /// let bytes = try shard.suggest(request) { answer in encode(answer) }
    /// ```
    public func suggest<R>(_ request: SuggestRequest, form: ResponseForm = .presented, generation number: Int? = nil,
                           shouldStop: (@Sendable () -> Bool)? = nil, answer: (borrowing SuggestAnswer) throws -> R) throws -> R {
        if let number { try Self.checkGenerationNumber(number) }
        let generation = try generation(number)
        return try generation.environment.read { txn in
            try answer(try SuggestEngine(generation: generation, analyzer: analyzer, shouldStop: shouldStop, form: form).suggest(request, in: txn))
        }
    }

    /// One page of search results, from the current generation or the one named.
    public func search(_ request: SearchRequest, form: ResponseForm = .presented, generation number: Int? = nil,
                       shouldStop: (@Sendable () -> Bool)? = nil) throws -> SearchResponse {
        if let number { try Self.checkGenerationNumber(number) }
        let generation = try generation(number)
        return try generation.environment.read { txn in
            try SearchEngine(generation: generation, analyzer: analyzer, shouldStop: shouldStop, form: form).search(request, in: txn)
        }
    }

    /// Live entries of the current generation.
    public func entryCount() throws -> Int {
        try current().liveCount()
    }

    /// LMDB figures of the current generation (bytes in use, map size).
    public func storageStatistics() throws -> (usedBytes: Int, mapSize: Int) {
        let statistics = try current().environment.statistics()
        return (statistics.usedBytes, statistics.mapSize)
    }

    /// Empties the current generation's query caches (``cacheStatistics()``), as if it had just
    /// opened; answers never change with them. For benchmarks, so that every measured pass starts
    /// from the same state.
    public func dropQueryCaches() {
        (try? current())?.dropQueryCaches()
    }

    /// The current generation's query caches, by name (for metrics; empty with no generation).
    /// Only the current one's: a generation still held by queries in flight keeps its caches until
    /// they finish, which takes milliseconds.
    public func cacheStatistics() -> [(name: String, statistics: StripedCacheStatistics, countsBytes: Bool)] {
        guard let generation = try? current() else { return [] }
        return generation.cacheStatistics()
    }

    /// What the current generation's trie of the delta's words did (for metrics; nil with no
    /// generation). Counts start at zero with each generation.
    public func deltaTrieStatistics() -> SnapshotCacheStatistics? {
        (try? current())?.deltaTrie.statistics
    }

    /// What the current generation's bitmap of deleted documents did (for metrics; nil with no
    /// generation). Counts start at zero with each generation.
    public func deletedBitmapStatistics() -> SnapshotCacheStatistics? {
        (try? current())?.deletedBitmap.statistics
    }

    /// What the current generation's in-memory chip words did (for metrics; nil with no
    /// generation). Counts start at zero with each generation.
    public func chipWordsStatistics() -> SnapshotCacheStatistics? {
        (try? current())?.chipWords.statistics
    }

    /// The live entry with this id, if any.
    public func entry(id: String) throws -> CatalogEntry? {
        let generation = try current()
        return try generation.environment.read { txn in
            guard let number = try txn.get(generation.schema.ids, id) else { return nil }
            return try generation.document(number.loadBigEndian(UInt32.self, at: 0), in: txn)?.materialize()
        }
    }

    // MARK: Updates

    /// Inserts or replaces entries by id, atomically; visible to the next query.
    ///
    /// A write made while a new generation is on its way reaches it too, so a reindex or a
    /// compaction does not lose it: during an upload it is logged and replayed onto the generation
    /// when the upload is built (``finishUpload(generation:batches:entries:)``); a generation
    /// already built and staged (newer than the serving one, not the previous) gets it at once.
    /// The summary counts what changed in the serving generation.
    public func upsert(_ entries: [CatalogEntry]) throws -> UpdateSummary {
        try writable()
        try EntryValidation.check(entries)
        // One entry per id (the API says so): which of two would count is a guess, and the guess
        // would differ between a node and a cluster that splits the batch.
        try Self.checkUniqueIDs(entries, in: "the upsert")
        let serving = try current()
        try carryForward(.upsert(entries), serving: serving.number)
        return try Updater(generation: serving, analyzer: analyzer).upsert(entries)
    }

    /// Deletes entries by id, atomically; ids that do not exist are counted, not an error. Carried
    /// to a generation on its way like ``upsert(_:)``.
    public func delete(ids: [String]) throws -> UpdateSummary {
        try writable()
        try EntryValidation.checkIDs(ids)
        let serving = try current()
        try carryForward(.delete(ids), serving: serving.number)
        return try Updater(generation: serving, analyzer: analyzer).delete(ids: ids)
    }

    /// Logs `change` for the upload in progress, if any, and applies it to every staged
    /// generation newer than the serving one. (Writes are serialised by the caller, a node's
    /// writer queue, with the upload's calls, so a write is either logged before the build or
    /// applied to the built generation after it.)
    private func carryForward(_ change: Upload.Change, serving: Int) throws {
        merging.withLock { log in
            if log?.generation == serving { log?.changes.append(change) }
        }
        try layout.withLock {
            let upload = Upload(shardDirectory: directory)
            if upload.exists { try upload.record(change) }
            let manifest = try layout.readManifest()
            for number in layout.generationsOnDisk() where number > serving && number != manifest.previous && layout.isComplete(number) {
                try apply([change], to: try open(number))
            }
        }
    }

    func apply(_ changes: [Upload.Change], to generation: Generation) throws {
        let updater = Updater(generation: generation, analyzer: analyzer)
        for change in changes {
            switch change {
            case .upsert(let entries): _ = try updater.upsert(entries)
            case .delete(let ids): _ = try updater.delete(ids: ids)
            }
        }
    }

    // MARK: Generations

    /// Builds a new generation from `entries` and activates it. `onStage` hears of each stage of
    /// the build as it ends (its name and seconds), on the building thread: a command's progress.
    @discardableResult
    public func build(from entries: consuming [CatalogEntry], parameters: IndexParameters = .init(), number: Int? = nil,
                      onStage: BuildStageObserver? = nil) throws -> GenerationInfo {
        try activated(buildGeneration(from: consume entries, parameters: parameters, number: number, label: nil, format: .current,
                                      onStage: onStage))
    }

    /// Builds a new generation from the entries `batches` gives until it returns nil, and activates
    /// it: a catalog of any size, read as it is indexed (``buildMemory``). An invalid entry or a
    /// repeated id fails the build (INVALID_ARGUMENT), and so does anything `batches` throws; the
    /// partial generation is then removed and the current one keeps serving.
    @discardableResult
    public func build(parameters: IndexParameters = .init(), number: Int? = nil, onStage: BuildStageObserver? = nil,
                      batches: @escaping () throws -> ArraySlice<CatalogEntry>?) throws -> GenerationInfo {
        try activated(buildGeneration(parameters: parameters, number: number, label: nil, format: .current, onStage: onStage,
                                      batches: Self.validated(batches)))
    }

    /// `batches`, each checked as it comes (``EntryValidation``, positions counted across batches);
    /// repeated ids are found by the build itself.
    private static func validated(_ batches: @escaping () throws -> ArraySlice<CatalogEntry>?) -> () throws -> ArraySlice<CatalogEntry>? {
        var position = 0
        return {
            guard let batch = try batches() else { return nil }
            try EntryValidation.check(batch, firstPosition: position)
            position += batch.count
            return batch
        }
    }

    private func activated(_ info: GenerationInfo) throws -> GenerationInfo {
        try activate(generation: info.number)
        var activated = info
        activated.state = .current
        return activated
    }

    /// Builds a new generation beside the current one, which keeps serving; it is staged, not active.
    /// On any error the partial generation is removed.
    ///
    /// - Parameter requested: the generation's number — a cluster builds one number on every
    ///   replica of every shard, so that queries can pin it everywhere. It must be above every
    ///   generation this shard has or had (FAILED_PRECONDITION otherwise); nil: the next one.
    ///
    /// Hand the entries over (`consume`) and the build frees them once they are analysed: a third
    /// of its peak memory.
    public func buildGeneration(from entries: consuming [CatalogEntry], parameters: IndexParameters = .init(),
                                number requested: Int? = nil, label: String? = nil) throws -> GenerationInfo {
        try buildGeneration(from: consume entries, parameters: parameters, number: requested, label: label, format: .current)
    }

    /// The same, in a chosen layout: tests build generations as earlier versions wrote them
    /// (``GenerationFormat/original``) to prove they are still read exactly.
    func buildGeneration(from entries: consuming [CatalogEntry], parameters: IndexParameters, number requested: Int?, label: String?,
                         format: GenerationFormat, onStage: BuildStageObserver? = nil) throws -> GenerationInfo {
        try EntryValidation.check(entries)
        try Self.checkUniqueIDs(entries, in: "the entries to index")
        return try buildGeneration(parameters: parameters, number: requested, label: label, format: format, onStage: onStage,
                                   batches: GenerationBuilder.batches(of: entries))
    }

    /// The build itself, from batches of entries (validated by the caller).
    private func buildGeneration(parameters: IndexParameters, number requested: Int?, label: String?, format: GenerationFormat,
                                 onStage: BuildStageObserver?, batches: () throws -> ArraySlice<CatalogEntry>?) throws -> GenerationInfo {
        try writable()
        if let requested { try Self.checkGenerationNumber(requested) }
        try Self.check(parameters)
        let (number, buildLock) = try layout.withLock { () throws -> (Int, Int32) in
            try removeIncompleteGenerations()
            let manifest = try layout.readManifest()
            let highest = (layout.generationsOnDisk() + [manifest.current ?? 0, manifest.previous ?? 0]).max()!
            if let requested, requested <= highest {
                throw IndexError(.failedPrecondition, "shard \(directory) already has generation \(highest); "
                                 + "generation \(requested) cannot be built (numbers only grow)")
            }
            guard highest < Self.maximumGenerationNumber else {
                throw IndexError(.failedPrecondition, "shard \(directory) has generation \(highest), the highest number there "
                                 + "can be; remove it (or the shard) to build again")
            }
            let number = requested ?? highest + 1
            do {
                try FileManager.default.createDirectory(atPath: layout.generationPath(number), withIntermediateDirectories: true)
            } catch {
                throw IndexError(.internal, "cannot create \(layout.generationPath(number)): \(error)")
            }
            guard let lock = layout.lockBuild(number) else {
                throw IndexError(.internal, "cannot lock the build of generation \(number)")
            }
            return (number, lock)
        }
        defer { close(buildLock) }
        let path = layout.generationPath(number)
        do {
            var builder = GenerationBuilder()
            builder.parallel = parallelBuilds
            builder.parameters = TrieParameters(listSize: parameters.listSize, heavyThreshold: parameters.heavyThreshold)
            builder.filterable = try SearchToken.Kind.filterable(parameters.filterableAttributes)
            builder.format = format
            builder.onStage = onStage
            builder.memoryBudget = buildMemory
            let statistics = try builder.build(at: path, batches: batches)
            if let label { try layout.writeLabel(label, number) }
            try layout.markComplete(number)
            return GenerationInfo(number: number, state: .staged, entries: statistics.entries, bytes: statistics.bytes, build: statistics,
                                  label: label)
        } catch {
            try? layout.remove(number)
            throw error
        }
    }

    /// Makes a complete generation current; the current one becomes previous (kept for rollback)
    /// and the generation before that is removed.
    public func activate(generation number: Int) throws {
        try writable()
        try Self.checkGenerationNumber(number)
        try layout.withLock {
            var manifest = try layout.readManifest()
            guard manifest.current != number else { return }
            guard layout.isComplete(number) else {
                throw IndexError(.notFound, "shard \(directory) has no complete generation \(number)")
            }
            let candidate = try open(number)
            let dropped = manifest.previous
            manifest.previous = manifest.current
            manifest.current = number
            try layout.writeManifest(manifest)
            serve(candidate, previous: manifest.previous)
            if let dropped, dropped != number, dropped != manifest.previous { try layout.remove(dropped) }
        }
    }

    /// Makes the previous generation current again (and the current one previous).
    public func rollback() throws {
        try writable()
        try layout.withLock {
            var manifest = try layout.readManifest()
            guard let previous = manifest.previous else {
                throw IndexError(.failedPrecondition, "shard \(directory) has no previous generation to roll back to")
            }
            let candidate = try open(previous)
            manifest.previous = manifest.current
            manifest.current = previous
            try layout.writeManifest(manifest)
            serve(candidate, previous: manifest.previous)
        }
    }

    /// Removes a generation that is not current.
    public func dropGeneration(_ number: Int) throws {
        try writable()
        try Self.checkGenerationNumber(number)
        try layout.withLock {
            var manifest = try layout.readManifest()
            guard manifest.current != number else {
                throw IndexError(.failedPrecondition, "generation \(number) is current; activate another one before dropping it")
            }
            guard layout.generationsOnDisk().contains(number) else {
                throw IndexError(.notFound, "shard \(directory) has no generation \(number)")
            }
            if manifest.previous == number {
                manifest.previous = nil
                try layout.writeManifest(manifest)
                // Let go of it, so that its environment closes and its disk space comes back.
                state.withLock { state in
                    if state?.previousNumber == number {
                        state?.previousNumber = nil
                        state?.previous = nil
                    }
                }
            }
            try layout.remove(number)
        }
    }

    /// Every generation on disk.
    public func generations() throws -> [GenerationInfo] {
        let manifest = try layout.readManifest()
        return try layout.generationsOnDisk().compactMap { number in
            guard layout.isComplete(number), let generation = try? open(number) else { return nil }
            let entries = try generation.liveCount()
            let bytes = try generation.environment.statistics().usedBytes
            let state: GenerationInfo.State = number == manifest.current ? .current : number == manifest.previous ? .previous : .staged
            return GenerationInfo(number: number, state: state, entries: entries, bytes: bytes, build: nil, label: layout.label(number))
        }
    }

    // MARK: Uploads and compaction

    /// The upload in progress, if any.
    public func upload() throws -> UploadInfo? {
        try Upload(shardDirectory: directory).read().map(Self.info)
    }

    /// Refuses build settings out of range: trie tuning, and filterable attribute names.
    private static func check(_ parameters: IndexParameters) throws(IndexError) {
        guard parameters.listSize >= 1, parameters.listSize <= 1024, parameters.heavyThreshold >= 1 else {
            throw IndexError.invalidArgument("index parameters out of range: \(parameters)")
        }
        _ = try SearchToken.Kind.filterable(parameters.filterableAttributes)
    }

    private static func info(_ state: Upload.State) -> UploadInfo {
        UploadInfo(generation: state.generation, label: state.label, batches: state.batches, entries: state.entries, bytes: state.bytes)
    }

    /// Begins (or resumes) uploading generation `number` in batches. The same number and label
    /// resume the upload in progress, or find the generation already built; anything else
    /// replaces the upload in progress. The number must be above every generation the shard has.
    ///
    /// - Throws: FAILED_PRECONDITION for a number not above the shard's generations (unless it is
    ///   already built from this label); INVALID_ARGUMENT for an empty or over-long label or bad
    ///   parameters.
    public func beginUpload(generation number: Int, label: String, parameters: IndexParameters = .init()) throws -> UploadStart {
        try writable()
        try Self.checkGenerationNumber(number)
        guard !label.isEmpty, label.utf8.count <= 256 else { throw IndexError.invalidArgument("label must be 1 to 256 bytes") }
        try Self.check(parameters)
        return try layout.withLock {
            if layout.isComplete(number), layout.label(number) == label,
               let info = try generations().first(where: { $0.number == number }) {
                return .built(info)
            }
            let upload = Upload(shardDirectory: directory)
            if let state = try upload.read(), state.generation == number, state.label == label {
                return .resumed(Self.info(state))
            }
            let highest = try highestGeneration()
            guard number > highest else {
                throw IndexError(.failedPrecondition, "shard \(directory) already has generation \(highest); "
                                 + "upload a number above it (numbers only grow)")
            }
            let state = Upload.State(generation: number, label: label, batches: 0, entries: 0, bytes: 0,
                                     listSize: parameters.listSize, heavyThreshold: parameters.heavyThreshold,
                                     filterableAttributes: parameters.filterableAttributes)
            try upload.start(state)
            return .started(Self.info(state))
        }
    }

    /// Appends batch `batch` (numbered from 0) of the upload. A batch already received is
    /// acknowledged again without being appended (a retried send); a batch past the next is refused.
    ///
    /// - Throws: NOT_FOUND when no upload of `number` is in progress; FAILED_PRECONDITION for a batch
    ///   past the next one; INVALID_ARGUMENT for an invalid entry (the batch is not appended).
    public func appendUpload(generation number: Int, batch: Int, entries: [CatalogEntry]) throws -> UploadInfo {
        try writable()
        try Self.checkGenerationNumber(number)
        try EntryValidation.check(entries)
        return try layout.withLock {
            let upload = Upload(shardDirectory: directory)
            guard let state = try upload.read(), state.generation == number else {
                throw IndexError(.notFound, "shard \(directory) has no upload of generation \(number) in progress; begin it first")
            }
            if batch < state.batches { return Self.info(state) }
            guard batch == state.batches else {
                throw IndexError(.failedPrecondition, "upload of generation \(number) expects batch \(state.batches), got \(batch)",
                                 reason: .uploadBatchOutOfOrder, metadata: ["expectedBatch": String(state.batches)])
            }
            return Self.info(try upload.append(entries, to: state))
        }
    }

    /// Builds the uploaded generation (staged, not active) once every batch arrived, and removes
    /// the upload. `batches` and `entries` are the sender's totals, checked against what arrived.
    ///
    /// - Throws: NOT_FOUND without such an upload; FAILED_PRECONDITION when the totals differ;
    ///   INVALID_ARGUMENT for duplicate ids across batches (the upload is kept; a new begin replaces it).
    public func finishUpload(generation number: Int, batches: Int, entries: Int) throws -> GenerationInfo {
        try writable()
        try Self.checkGenerationNumber(number)
        let upload = Upload(shardDirectory: directory)
        guard let state = try upload.read(), state.generation == number else {
            if layout.isComplete(number), let info = try generations().first(where: { $0.number == number }) { return info }
            throw IndexError(.notFound, "shard \(directory) has no upload of generation \(number) in progress")
        }
        guard state.batches == batches, state.entries == entries else {
            throw IndexError(.failedPrecondition, "upload of generation \(number) holds \(state.batches) batches and \(state.entries) "
                             + "entries; the sender sent \(batches) and \(entries)")
        }
        // Read back as it is indexed: a node builds an upload of any size in the build's memory.
        var info = try buildGeneration(parameters: IndexParameters(listSize: state.listSize, heavyThreshold: state.heavyThreshold,
                                                                   filterableAttributes: state.filterableAttributes ?? []),
                                       number: number, label: state.label, format: .current, onStage: nil,
                                       batches: Self.validated(try upload.batches(state)))
        try layout.withLock {
            // The writes made to the serving generation while the batches came in.
            let changes = try upload.changes()
            if !changes.isEmpty {
                let built = try open(number)
                try apply(changes, to: built)
                info.entries = try built.liveCount()
                info.bytes = try built.environment.statistics().usedBytes
            }
            try upload.remove()
        }
        return info
    }

    /// Discards the upload in progress, if any.
    public func abortUpload() throws {
        try writable()
        try layout.withLock { try Upload(shardDirectory: directory).remove() }
    }

    /// Rewrites the serving generation compactly (`MDB_CP_COMPACT`: free pages dropped) as a new
    /// generation `number`, staged; activate it to serve from the smaller file. Writes between
    /// the copy and the activation reach the copy too (``upsert(_:)`` writes staged generations);
    /// call it where writes are serialised (a node's writer queue), so none falls between.
    public func compact(into number: Int) throws -> GenerationInfo {
        try writable()
        try Self.checkGenerationNumber(number)
        let source = try current()
        return try layout.withLock {
            let highest = try highestGeneration()
            guard number > highest else {
                throw IndexError(.failedPrecondition, "shard \(directory) already has generation \(highest); compact into a number above it")
            }
            let path = layout.generationPath(number)
            do {
                try source.environment.copy(to: path, compacting: true)
                if let label = layout.label(source.number) { try layout.writeLabel(label, number) }
                try layout.markComplete(number)
            } catch {
                try? layout.remove(number)
                throw error
            }
            let opened = try open(number)
            return GenerationInfo(number: number, state: .staged, entries: try opened.liveCount(),
                                  bytes: try opened.environment.statistics().usedBytes, build: nil, label: layout.label(number))
        }
    }

    // MARK: Helpers

    func writable() throws {
        guard !readOnly else { throw IndexError(.failedPrecondition, "shard \(directory) is open read-only") }
    }

    private func removeIncompleteGenerations() throws {
        let manifest = try layout.readManifest()
        for number in layout.generationsOnDisk() where number != manifest.current && number != manifest.previous {
            guard !layout.isComplete(number), let lock = layout.lockBuild(number) else { continue }
            // Nobody is building it and it never completed: a crashed or failed build.
            close(lock)
            try layout.remove(number)
        }
    }

    private static func checkUniqueIDs(_ entries: [CatalogEntry], in what: String) throws {
        // Ids are bytes: canonically equal spellings are different ids. One arena of them
        // (``TermTable``), not a set of arrays: an allocation and a SipHash per id were 0.4 s of
        // a 1M-entry build.
        var seen = TermTable<Void>()
        seen.reserveCapacity(terms: entries.count, bytes: entries.count * 8)
        for (position, entry) in entries.enumerated() {
            var id = entry.id
            var repeated = false
            id.withUTF8 { bytes in seen.update(UnsafeRawBufferPointer(bytes)) { value in repeated = value != nil; value = () } }
            if repeated { throw IndexError.invalidArgument("duplicate id \"\(entry.id.prefix(64))\" (entry \(position + 1)) in \(what)") }
        }
    }
}
