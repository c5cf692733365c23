/// A command line failure: one line for standard error, and the exit status.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    var status: Int32 = 2
}

/// A small, strict command line parser: declared options only, `--name value` or `--name=value`,
/// `--` ends options. Anything unknown is an error naming the command, so typos never pass silently.
struct Arguments {
    let command: String
    private var values: [String: [String]] = [:]
    private(set) var positionals: [String] = []
    private(set) var wantsHelp = false

    /// - Parameters:
    ///   - flags: options without a value (`--json`).
    ///   - options: options with a value (`--dir DIR`); each may repeat.
    init(_ arguments: [String], command: String, flags: Set<String>, options: Set<String>) throws {
        self.command = command
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("--") || argument == "-" {
                if !onlyPositionals, argument.hasPrefix("-"), argument != "-", argument.count > 1, argument != "-h" {
                    throw UsageError(description: "typeahead \(command): unknown option \(argument) (see typeahead \(command) --help)")
                }
                if argument == "-h" { wantsHelp = true; continue }
                positionals.append(argument)
                continue
            }
            if argument == "--" { onlyPositionals = true; continue }
            if argument == "--help" { wantsHelp = true; continue }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if flags.contains(name) {
                guard inlineValue == nil else {
                    throw UsageError(description: "typeahead \(command): \(name) takes no value")
                }
                values[name, default: []].append("")
            } else if options.contains(name) {
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else {
                    guard index < arguments.count else {
                        throw UsageError(description: "typeahead \(command): \(name) needs a value")
                    }
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            } else {
                throw UsageError(description: "typeahead \(command): unknown option \(name) (see typeahead \(command) --help)")
            }
        }
    }

    func flag(_ name: String) -> Bool { values[name] != nil }

    func value(_ name: String) -> String? { values[name]?.last }

    func all(_ name: String) -> [String] { values[name] ?? [] }

    func required(_ name: String) throws -> String {
        guard let value = value(name), !value.isEmpty else {
            throw UsageError(description: "typeahead \(command): \(name) is required (see typeahead \(command) --help)")
        }
        return value
    }

    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = value(name) else { return fallback }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(description: "typeahead \(command): \(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
        }
        return number
    }

    /// A number (fractions allowed) within `range`.
    func double(_ name: String, default fallback: Double, range: ClosedRange<Double>) throws -> Double {
        guard let text = value(name) else { return fallback }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw UsageError(description: "typeahead \(command): \(name) must be a number from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
        }
        return number
    }

    /// A duration given in seconds (fractions allowed), within `range` seconds.
    func seconds(_ name: String, default fallback: Duration, range: ClosedRange<Double>) throws -> Duration {
        guard let text = value(name) else { return fallback }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw UsageError(description: "typeahead \(command): \(name) must be a number of seconds from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
        }
        return .milliseconds(Int64((number * 1000).rounded()))
    }

    func choice<T: RawRepresentable & CaseIterable>(_ name: String, default fallback: T) throws -> T where T.RawValue == String {
        guard let text = value(name) else { return fallback }
        guard let choice = T(rawValue: text) else {
            let allowed = T.allCases.map(\.rawValue).joined(separator: "|")
            throw UsageError(description: "typeahead \(command): \(name) must be one of \(allowed), got \"\(text)\"")
        }
        return choice
    }
}
