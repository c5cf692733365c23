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
  bench     measure build, open and suggest latency against SQLite FTS5

Run 'typeahead COMMAND --help' for a command's options.
"""

let commands: [String: ([String]) throws -> Int32] = [
    "index": IndexCommand.run,
    "suggest": SuggestCommand.run,
    "search": SearchCommand.run,
    "upsert": UpsertCommand.run,
    "delete": DeleteCommand.run,
    "bench": BenchCommand.run,
]

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
