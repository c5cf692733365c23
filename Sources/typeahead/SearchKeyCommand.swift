import Foundation
import Wire

/// `typeahead admin search-key`: derives a search key offline, from the secret alone (no server is
/// asked: a key is verified by its signature, so issuing one costs nothing and stores nothing).
enum SearchKeyCommand {
    static let help = """
    usage: typeahead admin search-key --secret-file F [--token category=NAME]... [--expires-in S] [--label TEXT]

    Prints a search key: a credential a browser can hold. Every Suggest and Search made with it
    (`authorization: Bearer KEY`) carries its tokens, which the request cannot remove, until it
    expires. Nodes and coordinators accept it when started with --search-key-secret-file naming a
    file with the same secret. Derived offline; revoke keys early by replacing the secret (servers
    accept every secret of their file, so keep the old one as a second line while rotating).

      --secret-file F        the secret (the file's first line; at least 32 bytes, e.g. from
                             `openssl rand -hex 32`)
      --token category=NAME  forced onto every query made with the key (repeatable)
      --expires-in S         seconds until the key stops working (default 3600; at most 10 years)
      --label TEXT           a name for the operator's logs (a tenant), at most 256 bytes
    """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, command: "admin search-key", flags: [],
                                 options: ["--secret-file", "--token", "--expires-in", "--label"])
        if args.wantsHelp { print(help); return 0 }
        guard args.positionals.isEmpty else {
            throw UsageError(description: "typeahead admin search-key: unexpected argument \"\(args.positionals[0])\"")
        }
        let secrets = try SearchKeySecrets.read(file: try args.required("--secret-file"), command: "admin search-key")
        let tokens = try QueryOptions.tokens(args).map { Typeahead_V1_SearchToken(kind: $0.kind.rawValue, value: $0.value) }
        guard tokens.count <= SearchKey.maximumTokens else {
            throw UsageError(description: "typeahead admin search-key: at most \(SearchKey.maximumTokens) tokens, got \(tokens.count)")
        }
        let lifetime = try args.integer("--expires-in", default: 3600, range: 1...(10 * 366 * 86_400))
        let label = args.value("--label") ?? ""
        guard label.utf8.count <= 256 else { throw UsageError(description: "typeahead admin search-key: --label is over 256 bytes") }
        let expires = Int64(Date().timeIntervalSince1970) + Int64(lifetime)
        let key = SearchKey(tokens: tokens, expires: expires, label: label).signed(with: secrets[0])
        guard key.utf8.count <= SearchKey.maximumBytes else {
            throw UsageError(description: "typeahead admin search-key: the key would be \(key.utf8.count) bytes; servers accept "
                             + "\(SearchKey.maximumBytes) (use fewer or shorter tokens)")
        }
        print(key)
        printError("typeahead admin search-key: expires \(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(expires))))")
        return 0
    }
}
