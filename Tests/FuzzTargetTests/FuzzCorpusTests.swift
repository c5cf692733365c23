import Foundation
import FuzzTargets
import TestSupport
import XCTest

/// Replays the fuzz corpus (`Tests/Fuzz/<target>/`: the seeds, and every crasher a fuzzing run
/// found, kept as a regression fixture) through each target, and a few thousand seeded random
/// mutations of it: each must return. `scripts/fuzz.sh` is the real fuzzer; this keeps what it
/// found fixed on every test run, in the normal (unsanitised) build.
final class FuzzCorpusTests: XCTestCase {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    func inputs(_ target: FuzzTarget) throws -> [[UInt8]] {
        let directory = Self.corpus.appendingPathComponent(target.rawValue)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try names.map { Array(try Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    func testEveryTargetHasSeeds() throws {
        for target in FuzzTarget.allCases {
            XCTAssertFalse(try inputs(target).isEmpty, "Tests/Fuzz/\(target.rawValue) has no inputs")
        }
    }

    func testTheCorpusAndItsMutationsReturn() throws {
        var rng = SeededGenerator(seed: 14)
        for target in FuzzTarget.allCases {
            let seeds = try inputs(target)
            for input in seeds { input.withUnsafeBytes { target.run($0) } }
            // Byte flips, truncations and splices: what a fuzzer tries first.
            for _ in 0..<2000 {
                var input = seeds.randomElement(using: &rng)!
                switch Int.random(in: 0..<4, using: &rng) {
                case 0 where !input.isEmpty:
                    input[Int.random(in: 0..<input.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                case 1 where !input.isEmpty:
                    input.removeLast(Int.random(in: 0...input.count, using: &rng))
                case 2:
                    let other = seeds.randomElement(using: &rng)!
                    input += other.suffix(Int.random(in: 0...other.count, using: &rng))
                default:
                    input.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...input.count, using: &rng))
                }
                input.withUnsafeBytes { target.run($0) }
            }
        }
    }
}
