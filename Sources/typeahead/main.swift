#if canImport(Glibc)
import Glibc
#endif

// The typeahead executable: parses the command line and calls into the modules. Nothing else.

let usage = """
usage: typeahead COMMAND [OPTIONS]

Commands:
  index     build (or rebuild, as a new generation) a shard from a JSON Lines catalog
  suggest   suggestions for a search field's text (what every keystroke asks)
  search    the full, paged search (what submit asks)
  upsert    insert or replace entries from a JSON Lines file
  delete    delete entries by id
  merge     fold a shard's upserts and deletes into a fresh base now
  node      serve a shard over gRPC / HTTP/2 and JSON
  coordinator  serve a cluster: fan out to the shards, merge exactly, answer like one node
  local     run a whole cluster on loopback (N shards × R replica processes and a coordinator)
  shard-of  which shard of an N-shard cluster holds an id
  admin     operate a live cluster: reindex without downtime, upsert, delete, status, rollback, compact
  bench     measure build, open and suggest latency against SQLite FTS5
  load      replay people typing against a node or coordinator: open or closed loop, latency report

Run 'typeahead COMMAND --help' for a command's options.
"""

let commands: [String: ([String]) throws -> Int32] = [
    "index": IndexCommand.run,
    "suggest": SuggestCommand.run,
    "search": SearchCommand.run,
    "upsert": UpsertCommand.run,
    "delete": DeleteCommand.run,
    "merge": MergeCommand.run,
    "bench": BenchCommand.run,
    "load": LoadCommand.run,
    "node": NodeCommand.run,
    "coordinator": CoordinatorCommand.run,
    "local": LocalCommand.run,
    "shard-of": ShardOfCommand.run,
    "admin": AdminCommand.run,
]

// A process starts with the signal mask of the thread that spawned it, and a parent's worker
// thread (libdispatch, Swift concurrency, Foundation's Process) blocks nearly every signal: a node
// started that way would never see SIGTERM. Start from a clean mask, whoever the parent is.
var unblocked = sigset_t()
sigemptyset(&unblocked)
pthread_sigmask(SIG_SETMASK, &unblocked, nil)

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, name != "--help", name != "-h", name != "help" else {
    print(usage)
    exit(arguments.isEmpty ? 2 : 0)
}
guard let command = commands[name] else {
    printError("typeahead: unknown command \"\(name)\" (see typeahead --help)")
    exit(2)
}
do {
    exit(try command(Array(arguments.dropFirst())))
} catch let error as UsageError {
    printError(error.description)
    exit(error.status)
} catch {
    printError("typeahead \(name): \(error)")
    exit(1)
}
