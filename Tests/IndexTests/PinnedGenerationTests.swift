import Catalog
import Dispatch
import Foundation
import Synchronization
import XCTest
import TestSupport
@testable import Index

/// Reads pinned to a generation by number, as a coordinator sends them while a cluster switches
/// generations. Found by `scripts/soak.sh`: during a reindex under load every pinned read of the
/// previous generation opened and closed its environment, and one opening while another call's
/// close was still running failed with EBUSY ("already open in this process"), INTERNAL to the
/// coordinator, which took the replicas out of routing.
final class PinnedGenerationTests: XCTestCase {
    private func entries(_ titles: [String], prefix: String) -> [CatalogEntry] {
        titles.enumerated().map { CatalogEntry(id: "\(prefix)\($0.offset)", title: $0.element, categories: ["Things"], weight: UInt64(100 - $0.offset)) }
    }

    func testPinnedReadsOfBothGenerationsSucceedWhileTheyTradePlaces() throws {
        let dir = TemporaryDirectory()
        let shard = try Shard(directory: dir.path)
        let a = try shard.build(from: entries(["apple pie", "apricot jam"], prefix: "a"))
        let b = try shard.buildGeneration(from: entries(["apple tart"], prefix: "b"))
        try shard.activate(generation: b.number)
        let expected = [a.number: ["apple pie", "apricot jam"], b.number: ["apple tart"]]

        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4_000) { index in
            do {
                if index % 200 == 199 {
                    try shard.rollback()   // current and previous trade places; both stay complete
                    return
                }
                let number = index % 2 == 0 ? a.number : b.number
                let titles = try shard.suggest(SuggestRequest(text: "ap"), generation: number).entries.map(\.title)
                if titles != expected[number] { failures.withLock { $0.append("generation \(number): \(titles)") } }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        let found = failures.withLock { $0 }
        XCTAssertEqual(found.count, 0, "first failures: \(found.prefix(3))")
    }

    func testDroppingThePreviousGenerationLetsGoOfIt() throws {
        let dir = TemporaryDirectory()
        let shard = try Shard(directory: dir.path)
        let a = try shard.build(from: entries(["apple pie"], prefix: "a"))
        let b = try shard.buildGeneration(from: entries(["apple tart"], prefix: "b"))
        try shard.activate(generation: b.number)
        // A pinned read keeps the previous generation open in the shard (the next read finds the
        // same open environment, not a new one) ...
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "ap"), generation: a.number).entries.map(\.title), ["apple pie"])
        let first = try shard.generation(a.number).environment.id
        let second = try shard.generation(a.number).environment.id
        XCTAssertEqual(first, second, "the previous generation is opened once, not per read")
        try shard.dropGeneration(a.number)
        // ... until it is dropped: then it is gone, and can be neither read nor rolled back to.
        XCTAssertThrowsError(try shard.suggest(SuggestRequest(text: "ap"), generation: a.number)) { error in
            XCTAssertEqual((error as? IndexError)?.code, .notFound)
        }
        XCTAssertThrowsError(try shard.rollback())
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/gen-" + String(format: "%06d", a.number)))
        // Building a generation numbered after it still works, and a third one leaves b as previous.
        let c = try shard.buildGeneration(from: entries(["apricot jam"], prefix: "c"))
        try shard.activate(generation: c.number)
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "ap"), generation: b.number).entries.map(\.title), ["apple tart"])
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "ap")).entries.map(\.title), ["apricot jam"])
    }

    /// An idle previous generation is let go (its caches and map with it); a pinned read or a
    /// rollback opens it again, and reads keep it held while they come.
    func testAnIdlePreviousGenerationIsLetGoAndOpenedAgainWhenNamed() throws {
        let dir = TemporaryDirectory()
        let shard = try Shard(directory: dir.path)
        let a = try shard.build(from: entries(["apple pie"], prefix: "a"))
        let b = try shard.buildGeneration(from: entries(["apple tart"], prefix: "b"))
        try shard.activate(generation: b.number)
        XCTAssertTrue(shard.holdsPreviousGeneration, "the generation that served until the switch is held")
        XCTAssertFalse(shard.releasePreviousGeneration(idleFor: .seconds(60)), "read a moment ago: kept")
        weak var held = try shard.generation(a.number)
        XCTAssertNotNil(held)
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertTrue(shard.releasePreviousGeneration(idleFor: .milliseconds(20)))
        XCTAssertFalse(shard.holdsPreviousGeneration)
        XCTAssertNil(held, "nothing else holds it: its environment closed")
        XCTAssertFalse(shard.releasePreviousGeneration(idleFor: .zero), "nothing left to let go")
        // Named again: opened again, with the same answers, and held again.
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "ap"), generation: a.number).entries.map(\.title), ["apple pie"])
        XCTAssertTrue(shard.holdsPreviousGeneration)
        XCTAssertFalse(shard.releasePreviousGeneration(idleFor: .seconds(60)))
        // A rollback after a release finds it too.
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertTrue(shard.releasePreviousGeneration(idleFor: .milliseconds(20)))
        try shard.rollback()
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "ap")).entries.map(\.title), ["apple pie"])
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "ap"), generation: b.number).entries.map(\.title), ["apple tart"])
    }

    func testANodeBuildOnOneThreadMatchesAParallelOne() throws {
        let catalog = (0..<5_000).map { CatalogEntry(id: "e\($0)", title: "item \($0 % 97) part \($0)", categories: ["C\($0 % 7)"],
                                                    weight: UInt64($0 % 1000)) }
        let (one, other) = (TemporaryDirectory(), TemporaryDirectory())
        let parallel = try Shard(directory: one.path)
        let serial = try Shard(directory: other.path, parallelBuilds: false)
        _ = try parallel.build(from: catalog)
        _ = try serial.build(from: catalog)
        for text in ["item 4", "part 49", "ite", "c3"] {
            XCTAssertEqual(try serial.suggest(SuggestRequest(text: text)), try parallel.suggest(SuggestRequest(text: text)), text)
        }
    }
}
