// The libFuzzer entry point of every fuzz target (scripts/fuzz.sh compiles it against the
// package's FuzzTargets module built with -sanitize=fuzzer,address). The target is chosen at run
// time from TYPEAHEAD_FUZZ_TARGET, so one binary serves them all.
import FuzzTargets
#if canImport(Glibc)
import Glibc
#endif

let target: FuzzTarget = {
    let name = getenv("TYPEAHEAD_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        fputs("TYPEAHEAD_FUZZ_TARGET must be one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n", stderr)
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    target.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
