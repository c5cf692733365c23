// Load: `typeahead load`, the keystroke load tester.
//
// It replays how people type into a search field — not a flood of identical requests — against a
// node or a coordinator, and reports what they would have waited.
//
//   Workload/   what people type: `TextSource` (catalog titles by weight, or a query log),
//               `TypingModel` → `SessionPlan` (keystrokes with pauses, corrected typos,
//               backspaces, submit), `ArrivalProcess` (Poisson or uniform session starts),
//               `WeightedSampler` (shared with `typeahead bench`'s keystroke workload).
//   Measure/    `LatencyHistogram` (log-linear, relative error ≤ 2^-7, mergeable),
//               `LatencyRecorder` (exact, for benchmarks and as the histogram's test oracle),
//               `LoadStatistics` (counts by kind, status, prefix length, second), `RequestOutcome`.
//   Driver/     `LoadGenerator` (connect, preflight, run, gather), `OpenLoopScheduler` (the open
//               loop's clock thread), `Lane` (one connection: send, time out, record, reconnect;
//               Lane+ClosedLoop: the closed loop's streams), `RunClock`, `LoadConfiguration`, `LoadError`.
//   Report/     `LoadReport` (report.json), its text summary and SVG chart.
//
// Threading: each connection belongs to one of the HTTP2Client's event loops, and so does its
// `Lane` and the statistics it records into (one `LoadStatistics` per loop, merged at the end) —
// no lock on a request's path. The open loop adds one scheduler thread that only computes times
// and queues sends onto the loops. See `LoadGenerator` for the sequence of a run.
//
// Measurement: in the open loop a request's latency counts from the moment the simulated person
// would have sent it, so a server (or a generator) that falls behind shows up as latency instead of
// silently lowering the load (no coordinated omission). The closed loop (`--max`) measures
// throughput; its latencies are service times.
