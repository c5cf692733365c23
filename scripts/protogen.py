#!/usr/bin/env python3
"""Generates Swift message types for the Wire module from the .proto files of this repository.

    python3 scripts/protogen.py            # regenerate every output directory below
    python3 scripts/protogen.py --check    # exit 1 if a committed generated file is out of date
    python3 scripts/protogen.py --root DIR --out DIR   # one other tree of .proto files

Standard library only. It reads the subset of proto3 this project uses and refuses everything
else with a message naming the file and line:

- `syntax = "proto3";`, `package a.b;`, `import "x/y.proto";` (resolved against the root),
  `option ...;` statements (ignored);
- `message` with nested `message` and `enum`, `reserved` statements (ignored);
- fields of every scalar type (double float int32 int64 uint32 uint64 sint32 sint64 fixed32
  fixed64 sfixed32 sfixed64 bool string bytes), enums and messages, with `repeated` or
  `optional`, and `map<K, V>` (K an integer type or string; V any non-map type);
- field options in brackets: `packed` is honoured, `deprecated` and `json_name` are ignored;
- `enum` (first value 0, no aliases); `service` with unary and streaming `rpc`s;
- `//` and `/* */` comments; the comment lines directly above a declaration (and a comment after
  it on the same line) become its Swift documentation.

Not supported (an error): proto2, `oneof`, groups, extensions, `map` keys of other types, and
cycles of singular message fields (a Swift struct cannot contain itself; use `repeated`).

Output, one Swift file per .proto file: a struct per message (`ProtoMessage`), an open enum per
enum (`ProtoEnum`, with `unrecognized(Int32)`), and a caseless enum of `ProtoMethod` descriptors per
service. Names follow the package: `typeahead.v1.SearchRequest.Sort` becomes
`Typeahead_V1_SearchRequest.Sort`; `replacement_text` becomes `replacementText`; enum value names
lose their enum's UPPER_SNAKE prefix (`TYPOS_AUTO` of `Typos` becomes `.auto`).
"""

import argparse
import difflib
import os
import re
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (proto root, output directory), relative to the repository.
JOBS = [
    ("proto", "Sources/Wire/Generated"),
    ("Tests/WireTests/Fixtures/proto", "Tests/WireTests/Generated"),
]

# proto type -> (Swift type, runtime codec, default literal)
SCALARS = {
    "double": ("Double", "ProtoDouble", "0"),
    "float": ("Float", "ProtoFloat", "0"),
    "int32": ("Int32", "ProtoInt32", "0"),
    "int64": ("Int64", "ProtoInt64", "0"),
    "uint32": ("UInt32", "ProtoUInt32", "0"),
    "uint64": ("UInt64", "ProtoUInt64", "0"),
    "sint32": ("Int32", "ProtoSInt32", "0"),
    "sint64": ("Int64", "ProtoSInt64", "0"),
    "fixed32": ("UInt32", "ProtoFixed32", "0"),
    "fixed64": ("UInt64", "ProtoFixed64", "0"),
    "sfixed32": ("Int32", "ProtoSFixed32", "0"),
    "sfixed64": ("Int64", "ProtoSFixed64", "0"),
    "bool": ("Bool", "ProtoBool", "false"),
    "string": ("String", "ProtoString", '""'),
    "bytes": ("[UInt8]", "ProtoBytes", "[]"),
}
MAP_KEYS = {"int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32", "fixed64",
            "sfixed32", "sfixed64", "string"}

SWIFT_KEYWORDS = set("""
associatedtype class deinit enum extension fileprivate func import init inout internal let open
operator private precedencegroup protocol public rethrows static struct subscript typealias var
break case catch continue default defer do else fallthrough for guard if in repeat return throw
switch where while Any as await false is nil self Self super throws true try Type Protocol
""".split())


class ProtoSyntaxError(Exception):
    pass


# MARK: Tokenizer

TOKEN = re.compile(r"""
    (?P<space>[ \t\r\f\v]+)
  | (?P<newline>\n)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>-?(?:0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|\.[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<symbol>[{}()\[\];=<>,])
""", re.VERBOSE | re.DOTALL)


class Token:
    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self):
        return f"{self.text!r} (line {self.line})"


def tokenize(source, path):
    """Returns (tokens, comments): comments maps a line number to (text, standalone)."""
    tokens, comments = [], {}
    line, pos = 1, 0
    last_token_line = 0
    while pos < len(source):
        m = TOKEN.match(source, pos)
        if not m:
            raise ProtoSyntaxError(f"{path}:{line}: unexpected character {source[pos]!r}")
        kind, text = m.lastgroup, m.group()
        if kind == "newline":
            line += 1
        elif kind == "line_comment":
            body = text[2:]
            if body.startswith(" "):
                body = body[1:]
            comments[line] = (body.rstrip(), last_token_line != line)
        elif kind == "block_comment":
            standalone = last_token_line != line
            for i, raw in enumerate(text[2:-2].split("\n")):
                body = re.sub(r"^\s*\*?\s?", "", raw) if i > 0 else raw.strip()
                if body.strip() or i > 0:
                    comments[line + i] = (body.rstrip(), standalone)
            line += text.count("\n")
        elif kind != "space":
            tokens.append(Token(kind, text, line))
            last_token_line = line
        pos = m.end()
    return tokens, comments


# MARK: Model

class Field:
    def __init__(self, name, number, label, type_name, line, key_type=None, options=None):
        self.name, self.number, self.label, self.type_name, self.line = name, number, label, type_name, line
        self.key_type = key_type  # set for map fields; type_name is then the value type
        self.options = options or {}
        self.doc = []
        self.resolved = None  # Message or Enum for non-scalar types

    @property
    def is_map(self):
        return self.key_type is not None


class Enum:
    def __init__(self, name, full_name, parent, file):
        self.name, self.full_name, self.parent, self.file = name, full_name, parent, file
        self.values = []  # (name, number, doc)
        self.doc = []


class Message:
    def __init__(self, name, full_name, parent, file):
        self.name, self.full_name, self.parent, self.file = name, full_name, parent, file
        self.fields, self.messages, self.enums = [], [], []
        self.doc = []


class Method:
    def __init__(self, name, input_type, input_stream, output_type, output_stream):
        self.name, self.input_type, self.input_stream = name, input_type, input_stream
        self.output_type, self.output_stream = output_type, output_stream
        self.doc = []
        self.input = self.output = None


class Service:
    def __init__(self, name, full_name):
        self.name, self.full_name = name, full_name
        self.methods = []
        self.doc = []


class ProtoFile:
    def __init__(self, path, relative):
        self.path, self.relative = path, relative
        self.package = ""
        self.imports = []
        self.messages, self.enums, self.services = [], [], []
        self.header_doc = []


# MARK: Parser

class Parser:
    def __init__(self, path, relative, source):
        self.path = relative
        self.tokens, self.comments = tokenize(source, relative)
        self.i = 0
        self.file = ProtoFile(path, relative)

    def error(self, message, token=None):
        token = token or self.peek()
        line = token.line if token else "end"
        return ProtoSyntaxError(f"{self.path}:{line}: {message}")

    def peek(self, offset=0):
        j = self.i + offset
        return self.tokens[j] if j < len(self.tokens) else None

    def next(self):
        token = self.peek()
        if token is None:
            raise self.error("unexpected end of file")
        self.i += 1
        return token

    def expect(self, text):
        token = self.next()
        if token.text != text:
            raise self.error(f"expected {text!r}, found {token.text!r}", token)
        return token

    def ident(self):
        token = self.next()
        if token.kind != "ident":
            raise self.error(f"expected a name, found {token.text!r}", token)
        return token.text

    def integer(self):
        token = self.next()
        if token.kind != "number" or not re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|[0-9]+)", token.text):
            raise self.error(f"expected an integer, found {token.text!r}", token)
        return int(token.text, 0)

    def doc_for(self, token):
        """The standalone comment lines directly above `token`, then a comment on its line."""
        lines = []
        line = token.line - 1
        while line in self.comments and self.comments[line][1]:
            lines.insert(0, self.comments[line][0])
            line -= 1
        return lines

    def trailing_doc(self, line):
        entry = self.comments.get(line)
        return [entry[0]] if entry and not entry[1] else []

    def skip_statement(self):
        while self.next().text != ";":
            pass

    def parse(self):
        first = self.peek()
        if first is not None:
            self.file.header_doc = self.doc_for(first)
        saw_syntax = False
        while self.peek() is not None:
            token = self.peek()
            if token.text == "syntax":
                self.next()
                self.expect("=")
                value = self.next().text.strip("\"'")
                self.expect(";")
                if value != "proto3":
                    raise self.error(f"only proto3 is supported, not {value}", token)
                saw_syntax = True
            elif token.text == "package":
                self.next()
                self.file.package = self.ident()
                self.expect(";")
            elif token.text == "import":
                self.next()
                if self.peek().text in ("public", "weak"):
                    self.next()
                name = self.next()
                if name.kind != "string":
                    raise self.error("expected the imported file's name in quotes", name)
                self.file.imports.append(name.text[1:-1])
                self.expect(";")
            elif token.text == "option":
                self.skip_statement()
            elif token.text == "message":
                self.file.messages.append(self.message(None))
            elif token.text == "enum":
                self.file.enums.append(self.enum(None))
            elif token.text == "service":
                self.file.services.append(self.service())
            elif token.text == ";":
                self.next()
            else:
                raise self.error(f"unexpected {token.text!r} at the top level", token)
        if not saw_syntax:
            raise ProtoSyntaxError(f'{self.path}: missing `syntax = "proto3";`')
        return self.file

    def scoped(self, parent, name):
        base = parent.full_name if parent else self.file.package
        return f"{base}.{name}" if base else name

    def message(self, parent):
        start = self.expect("message")
        name = self.ident()
        message = Message(name, self.scoped(parent, name), parent, self.file)
        message.doc = self.doc_for(start)
        self.expect("{")
        while self.peek().text != "}":
            token = self.peek()
            if token.text == "message":
                message.messages.append(self.message(message))
            elif token.text == "enum":
                message.enums.append(self.enum(message))
            elif token.text in ("reserved", "option"):
                self.skip_statement()
            elif token.text == ";":
                self.next()
            elif token.text in ("oneof", "extensions", "extend", "group", "required"):
                raise self.error(f"`{token.text}` is not supported by this generator", token)
            else:
                message.fields.append(self.field(message))
        self.expect("}")
        numbers, names = {}, set()
        for field in message.fields:
            if field.number in numbers:
                raise ProtoSyntaxError(f"{self.path}:{field.line}: field number {field.number} is used twice in {name}")
            if field.name in names:
                raise ProtoSyntaxError(f"{self.path}:{field.line}: field name {field.name} is used twice in {name}")
            numbers[field.number] = field
            names.add(field.name)
        return message

    def field(self, message):
        start = self.peek()
        label = ""
        if start.text in ("repeated", "optional"):
            label = self.next().text
        key_type = None
        if self.peek().text == "map":
            if label:
                raise self.error("a map field cannot be repeated or optional")
            self.next()
            self.expect("<")
            key_type = self.ident()
            self.expect(",")
            type_name = self.ident()
            self.expect(">")
            if key_type not in MAP_KEYS:
                raise self.error(f"map keys of type {key_type} are not supported")
            if type_name == "map":
                raise self.error("map values cannot be maps")
        else:
            type_name = self.ident()
        name = self.ident()
        self.expect("=")
        number = self.integer()
        if not (1 <= number <= (1 << 29) - 1) or 19000 <= number <= 19999:
            raise self.error(f"field number {number} is not allowed")
        options = {}
        if self.peek().text == "[":
            self.next()
            while True:
                option = self.ident()
                self.expect("=")
                options[option] = self.next().text
                if self.peek().text == ",":
                    self.next()
                    continue
                self.expect("]")
                break
        end = self.expect(";")
        for option in options:
            if option not in ("packed", "deprecated", "json_name"):
                raise self.error(f"field option {option} is not supported", end)
        field = Field(name, number, label, type_name, start.line, key_type, options)
        field.doc = self.doc_for(start) + self.trailing_doc(end.line)
        return field

    def enum(self, parent):
        start = self.expect("enum")
        name = self.ident()
        enum = Enum(name, self.scoped(parent, name), parent, self.file)
        enum.doc = self.doc_for(start)
        self.expect("{")
        while self.peek().text != "}":
            token = self.peek()
            if token.text in ("reserved", "option"):
                if token.text == "option" and self.peek(1).text == "allow_alias":
                    raise self.error("enum aliases are not supported", token)
                self.skip_statement()
                continue
            if token.text == ";":
                self.next()
                continue
            value_name = self.ident()
            self.expect("=")
            number = self.integer()
            if self.peek().text == "[":
                while self.next().text != "]":
                    pass
            end = self.expect(";")
            if not (-(1 << 31) <= number < (1 << 31)):
                raise self.error(f"enum value {number} does not fit in int32", token)
            if any(v[1] == number for v in enum.values):
                raise self.error(f"enum value {number} is used twice in {name} (aliases are not supported)", token)
            enum.values.append((value_name, number, self.doc_for(token) + self.trailing_doc(end.line)))
        self.expect("}")
        if not enum.values or enum.values[0][1] != 0:
            raise self.error(f"the first value of enum {name} must be 0 (proto3)", start)
        return enum

    def service(self):
        start = self.expect("service")
        name = self.ident()
        service = Service(name, f"{self.file.package}.{name}" if self.file.package else name)
        service.doc = self.doc_for(start)
        self.expect("{")
        while self.peek().text != "}":
            token = self.peek()
            if token.text == "option":
                self.skip_statement()
                continue
            if token.text == ";":
                self.next()
                continue
            self.expect("rpc")
            method_name = self.ident()
            self.expect("(")
            input_stream = self.peek().text == "stream" and self.peek(1).text != ")"
            if input_stream:
                self.next()
            input_type = self.ident()
            self.expect(")")
            self.expect("returns")
            self.expect("(")
            output_stream = self.peek().text == "stream" and self.peek(1).text != ")"
            if output_stream:
                self.next()
            output_type = self.ident()
            self.expect(")")
            if self.peek().text == "{":
                depth = 0
                while True:
                    text = self.next().text
                    depth += {"{": 1, "}": -1}.get(text, 0)
                    if depth == 0:
                        break
                end = None
            else:
                end = self.expect(";")
            method = Method(method_name, input_type, input_stream, output_type, output_stream)
            method.doc = self.doc_for(token) + (self.trailing_doc(end.line) if end else [])
            service.methods.append(method)
        self.expect("}")
        return service


# MARK: Resolution

def load(root, relative, files):
    """Parses `relative` and, first, everything it imports; returns its ProtoFile."""
    if relative in files:
        if files[relative] is None:
            raise ProtoSyntaxError(f"{relative}: import cycle")
        return files[relative]
    files[relative] = None
    path = os.path.join(root, relative)
    if not os.path.exists(path):
        raise ProtoSyntaxError(f"{relative}: not found under {root}")
    with open(path, encoding="utf-8") as f:
        parsed = Parser(path, relative, f.read()).parse()
    for imported in parsed.imports:
        load(root, imported, files)
    files[relative] = parsed
    return parsed


def all_types(container):
    for enum in container.enums:
        yield enum
    for message in container.messages:
        yield message
        yield from all_types(message)


def resolve(files):
    symbols = {}
    for parsed in files.values():
        for declared in all_types(parsed):
            if declared.full_name in symbols:
                raise ProtoSyntaxError(f"{parsed.relative}: {declared.full_name} is declared twice")
            symbols[declared.full_name] = declared

    def lookup(name, scope, where):
        if name.startswith("."):
            found = symbols.get(name[1:])
        else:
            first, _, rest = name.partition(".")
            found = None
            parts = scope.split(".") if scope else []
            while True:
                prefix = ".".join(parts)
                candidate = f"{prefix}.{first}" if prefix else first
                if candidate in symbols or any(s.startswith(candidate + ".") for s in symbols):
                    full = f"{candidate}.{rest}" if rest else candidate
                    found = symbols.get(full)
                    if found is not None or candidate in symbols:
                        break
                if not parts:
                    break
                parts.pop()
        if found is None:
            raise ProtoSyntaxError(f"{where}: unknown type {name}")
        return found

    for parsed in files.values():
        for declared in all_types(parsed):
            if isinstance(declared, Message):
                for field in declared.fields:
                    if field.type_name not in SCALARS:
                        field.resolved = lookup(field.type_name, declared.full_name,
                                                f"{parsed.relative}:{field.line}")
        for service in parsed.services:
            for method in service.methods:
                where = f"{parsed.relative}: rpc {method.name}"
                method.input = lookup(method.input_type, parsed.package, where)
                method.output = lookup(method.output_type, parsed.package, where)
                for end in (method.input, method.output):
                    if not isinstance(end, Message):
                        raise ProtoSyntaxError(f"{where}: {end.full_name} is not a message")

    # A struct cannot contain itself through singular (inline) message fields.
    def visit(message, path):
        if message in path:
            cycle = " -> ".join(m.full_name for m in path[path.index(message):] + [message])
            raise ProtoSyntaxError(f"{message.file.relative}: singular message fields form a cycle ({cycle}); "
                                   "make one of them repeated")
        for field in message.fields:
            if isinstance(field.resolved, Message) and field.label != "repeated" and not field.is_map:
                visit(field.resolved, path + [message])

    for parsed in files.values():
        for declared in all_types(parsed):
            if isinstance(declared, Message):
                visit(declared, [])


# MARK: Swift naming

def camel(snake, upper_first):
    parts = [p for p in snake.split("_") if p]
    if not parts:
        return snake
    out = []
    for i, part in enumerate(parts):
        if i == 0 and not upper_first:
            out.append(part[0].lower() + part[1:])
        else:
            out.append(part[0].upper() + part[1:])
    return "".join(out)


def escape(name):
    return f"`{name}`" if name in SWIFT_KEYWORDS else name


def package_prefix(package):
    return "".join(camel(part, True) + "_" for part in package.split(".")) if package else ""


def swift_type_name(declared):
    if declared.parent is not None:
        return f"{swift_type_name(declared.parent)}.{declared.name}"
    return package_prefix(declared.file.package) + declared.name


def upper_snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


def case_name(enum, value_name):
    prefix = upper_snake(enum.name) + "_"
    name = value_name
    if name.startswith(prefix) and len(name) > len(prefix) and not name[len(prefix)].isdigit():
        name = name[len(prefix):]
    name = camel(name.lower(), False)
    if name == "unrecognized":
        name = "unrecognized_"
    return escape(name)


def property_name(field):
    return escape(camel(field.name, False))


def self_ref(field):
    return f"self.{property_name(field)}"


# MARK: Swift emission

class Emitter:
    def __init__(self):
        self.lines = []
        self.level = 0

    def line(self, text=""):
        self.lines.append(("    " * self.level + text) if text else "")

    def doc(self, lines):
        for text in trim_doc(lines):
            self.line(f"/// {text}".rstrip())

    def indent(self):
        self.level += 1

    def dedent(self):
        self.level -= 1


def trim_doc(lines):
    lines = list(lines)
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def value_type(field):
    """Swift type of one value of the field (the element for repeated, the value for maps)."""
    if field.type_name in SCALARS:
        return SCALARS[field.type_name][0]
    return swift_type_name(field.resolved)


def field_type(field):
    element = value_type(field)
    if field.is_map:
        return f"[{SCALARS[field.key_type][0]}: {element}]"
    if field.label == "repeated":
        return f"[{element}]"
    if field.label == "optional" or isinstance(field.resolved, Message):
        return f"{element}?"
    return element


def default_literal(field):
    if field.is_map:
        return "[:]"
    if field.label == "repeated":
        return "[]"
    if field.label == "optional" or isinstance(field.resolved, Message):
        return "nil"
    if isinstance(field.resolved, Enum):
        return f".{case_name(field.resolved, field.resolved.values[0][0])}"
    return SCALARS[field.type_name][2]


def codec(type_name):
    return SCALARS[type_name][1]


def emit_enum(out, enum):
    name = enum.name if enum.parent else swift_type_name(enum)
    out.doc(enum.doc)
    out.line(f"public enum {name}: ProtoEnum {{")
    out.indent()
    for value_name, number, doc in enum.values:
        out.doc(doc)
        if trim_doc(doc):
            out.line("///")
        out.line(f"/// `{value_name} = {number}`")
        out.line(f"case {case_name(enum, value_name)}")
    out.line("/// A value this version of the schema does not know; kept so that it is sent on unchanged.")
    out.line("case unrecognized(Int32)")
    out.line()
    out.line(f"/// Every case this schema declares, in declaration order.")
    cases = ", ".join(f".{case_name(enum, v[0])}" for v in enum.values)
    out.line(f"public static let knownCases: [{name}] = [{cases}]")
    out.line()
    out.line("public init(rawValue: Int32) {")
    out.indent()
    out.line("switch rawValue {")
    for value_name, number, _ in enum.values:
        out.line(f"case {number}: self = .{case_name(enum, value_name)}")
    out.line("default: self = .unrecognized(rawValue)")
    out.line("}")
    out.dedent()
    out.line("}")
    out.line()
    out.line("public var rawValue: Int32 {")
    out.indent()
    out.line("switch self {")
    for value_name, number, _ in enum.values:
        out.line(f"case .{case_name(enum, value_name)}: {number}")
    out.line("case .unrecognized(let value): value")
    out.line("}")
    out.dedent()
    out.line("}")
    out.line()
    out.line(f"public static func == (a: {name}, b: {name}) -> Bool {{ a.rawValue == b.rawValue }}")
    out.line("public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }")
    out.dedent()
    out.line("}")


def emit_encode_field(out, field):
    ref = self_ref(field)
    n = field.number
    target = field.resolved
    if field.is_map:
        out.line(f"for mapKey in ProtoWriter.sortedKeys({ref}) {{")
        out.indent()
        out.line(f"let mapValue = {ref}[mapKey]!")
        out.line(f"writer.writeNested({n}) {{ entry in")
        out.indent()
        out.line(f"entry.writePresent({codec(field.key_type)}.self, 1, mapKey)")
        if isinstance(target, Message):
            out.line("entry.writeMessage(2, mapValue)")
        elif isinstance(target, Enum):
            out.line("entry.writePresent(ProtoInt32.self, 2, mapValue.rawValue)")
        else:
            out.line(f"entry.writePresent({codec(field.type_name)}.self, 2, mapValue)")
        out.dedent()
        out.line("}")
        out.dedent()
        out.line("}")
    elif field.label == "repeated":
        unpacked = field.options.get("packed") == "false"
        if isinstance(target, Message):
            out.line(f"for item in {ref} {{ writer.writeMessage({n}, item) }}")
        elif isinstance(target, Enum):
            if unpacked:
                out.line(f"for item in {ref} {{ writer.writePresent(ProtoInt32.self, {n}, item.rawValue) }}")
            else:
                out.line(f"writer.writeRepeatedEnum({n}, {ref})")
        elif unpacked:
            out.line(f"for item in {ref} {{ writer.writePresent({codec(field.type_name)}.self, {n}, item) }}")
        else:
            out.line(f"writer.writeRepeated({codec(field.type_name)}.self, {n}, {ref})")
    elif isinstance(target, Message):
        out.line(f"if let value = {ref} {{ writer.writeMessage({n}, value) }}")
    elif isinstance(target, Enum):
        if field.label == "optional":
            out.line(f"if let value = {ref} {{ writer.writePresent(ProtoInt32.self, {n}, value.rawValue) }}")
        else:
            out.line(f"writer.writeEnum({n}, {ref})")
    elif field.label == "optional":
        out.line(f"if let value = {ref} {{ writer.writePresent({codec(field.type_name)}.self, {n}, value) }}")
    else:
        out.line(f"writer.write({codec(field.type_name)}.self, {n}, {ref})")


def emit_decode_field(out, field):
    ref = self_ref(field)
    name = f'"{field.name}"'
    target = field.resolved
    if field.is_map:
        out.line(f"case {field.number}:")
        out.indent()
        out.line(f"var mapKey: {SCALARS[field.key_type][0]} = {SCALARS[field.key_type][2]}")
        if isinstance(target, Message):
            out.line(f"var mapValue = {swift_type_name(target)}()")
        elif isinstance(target, Enum):
            out.line(f"var mapValue = {swift_type_name(target)}(rawValue: 0)")
        else:
            out.line(f"var mapValue: {value_type(field)} = {SCALARS[field.type_name][2]}")
        out.line(f"try reader.readNested(tag, {name}) {{ entry throws(ProtoError) in")
        out.indent()
        out.line("while let tag = try entry.nextTag() {")
        out.indent()
        out.line("switch tag.number {")
        out.line(f'case 1: mapKey = try entry.read({codec(field.key_type)}.self, tag, "key")')
        if isinstance(target, Message):
            out.line(f'case 2: mapValue = try entry.readMessage(tag, "value", as: {swift_type_name(target)}.self)')
        elif isinstance(target, Enum):
            out.line('case 2: mapValue = try entry.readEnum(tag, "value")')
        else:
            out.line(f'case 2: mapValue = try entry.read({codec(field.type_name)}.self, tag, "value")')
        out.line("default: try entry.skip(tag)")
        out.line("}")
        out.dedent()
        out.line("}")
        out.dedent()
        out.line("}")
        out.line(f"{ref}[mapKey] = mapValue")
        out.dedent()
        return
    prefix = f"case {field.number}: "
    if field.label == "repeated":
        if isinstance(target, Message):
            out.line(f"{prefix}{ref}.append(try reader.readMessage(tag, {name}, as: {swift_type_name(target)}.self))")
        elif isinstance(target, Enum):
            out.line(f"{prefix}try reader.readRepeatedEnum(tag, {name}, into: &{ref})")
        else:
            out.line(f"{prefix}try reader.readRepeated({codec(field.type_name)}.self, tag, {name}, into: &{ref})")
    elif isinstance(target, Message):
        out.line(f"{prefix}{ref} = try reader.readMessage(tag, {name}, as: {swift_type_name(target)}.self)")
    elif isinstance(target, Enum):
        out.line(f"{prefix}{ref} = try reader.readEnum(tag, {name}) as {swift_type_name(target)}")
    else:
        out.line(f"{prefix}{ref} = try reader.read({codec(field.type_name)}.self, tag, {name})")


def emit_message(out, message):
    name = message.name if message.parent else swift_type_name(message)
    fields = sorted(message.fields, key=lambda f: f.number)
    out.doc(message.doc)
    out.line(f"public struct {name}: ProtoMessage {{")
    out.indent()
    out.line(f'public static let protoMessageName = "{message.full_name}"')
    out.line()
    for field in message.fields:
        out.doc(field.doc)
        declaration = ("map<" + field.key_type + ", " + field.type_name + ">") if field.is_map else \
            " ".join(p for p in (field.label, field.type_name) if p)
        if trim_doc(field.doc):
            out.line("///")
        out.line(f"/// `{declaration} {field.name} = {field.number}`")
        out.line(f"public var {property_name(field)}: {field_type(field)} = {default_literal(field)}")
    out.line("/// Fields this version of the schema does not know, passed on unchanged by `encode(to:)`.")
    out.line("public var unknownFields = ProtoUnknownFields()")
    out.line()
    out.line("public init() {}")
    if message.fields:
        out.line()
        params = ", ".join(f"{property_name(f)}: {field_type(f)} = {default_literal(f)}" for f in message.fields)
        out.line(f"public init({params}) {{")
        out.indent()
        for field in message.fields:
            out.line(f"{self_ref(field)} = {property_name(field)}")
        out.dedent()
        out.line("}")
    out.line()
    out.line("public func encode(to writer: inout ProtoWriter) {")
    out.indent()
    for field in fields:
        emit_encode_field(out, field)
    out.line("writer.writeUnknown(self.unknownFields)")
    out.dedent()
    out.line("}")
    out.line()
    out.line("public init(decoding reader: inout ProtoReader) throws(ProtoError) {")
    out.indent()
    out.line("while let tag = try reader.nextTag() {")
    out.indent()
    if fields:
        out.line("switch tag.number {")
        for field in fields:
            emit_decode_field(out, field)
        out.line("default: try reader.skip(tag, preserving: &self.unknownFields)")
        out.line("}")
    else:
        out.line("try reader.skip(tag, preserving: &self.unknownFields)")
    out.dedent()
    out.line("}")
    out.dedent()
    out.line("}")
    for enum in message.enums:
        out.line()
        emit_enum(out, enum)
    for nested in message.messages:
        out.line()
        emit_message(out, nested)
    out.dedent()
    out.line("}")


def emit_service(out, service, package):
    name = package_prefix(package) + service.name + "Service"
    out.doc(service.doc)
    out.line(f"public enum {name} {{")
    out.indent()
    out.line(f'public static let name = "{service.full_name}"')
    for method in service.methods:
        out.line()
        out.doc(method.doc)
        types = f"{swift_type_name(method.input)}, {swift_type_name(method.output)}"
        out.line(f"public static let {escape(camel(method.name, False))} = ProtoMethod<{types}>(")
        out.indent()
        out.line(f'path: "/{service.full_name}/{method.name}", '
                 f"clientStreaming: {str(method.input_stream).lower()}, serverStreaming: {str(method.output_stream).lower()})")
        out.dedent()
    out.line()
    out.line("/// The `:path` of every method, in declaration order.")
    paths = ", ".join(f'"/{service.full_name}/{m.name}"' for m in service.methods)
    out.line(f"public static let paths: [String] = [{paths}]")
    out.dedent()
    out.line("}")


def generate_file(parsed, imports_module):
    out = Emitter()
    out.line(f"// Generated by scripts/protogen.py from {parsed.relative}. Do not edit: change the .proto")
    out.line("// and run `python3 scripts/protogen.py`.")
    out.line("//")
    for text in trim_doc(parsed.header_doc):
        out.line(f"// {text}".rstrip())
    if imports_module:
        out.line()
        out.line(f"import {imports_module}")
    blocks = []
    for enum in parsed.enums:
        blocks.append(("enum", enum))
    for message in parsed.messages:
        blocks.append(("message", message))
    for service in parsed.services:
        blocks.append(("service", service))
    messages = [m for m in all_types(parsed) if isinstance(m, Message)]
    if messages:
        base = os.path.basename(parsed.relative)[:-len(".proto")]
        out.line()
        out.line(f"/// The messages of `{parsed.relative}`, e.g. to look a type up by `protoMessageName`.")
        out.line(f"public enum {package_prefix(parsed.package)}{camel(base, True)}Proto {{")
        out.indent()
        out.line("public static let messageTypes: [any ProtoMessage.Type] = [")
        out.indent()
        for message in messages:
            out.line(f"{swift_type_name(message)}.self,")
        out.dedent()
        out.line("]")
        out.dedent()
        out.line("}")
    for kind, item in blocks:
        out.line()
        if kind == "enum":
            emit_enum(out, item)
        elif kind == "message":
            emit_message(out, item)
        else:
            emit_service(out, item, parsed.package)
    return "\n".join(out.lines) + "\n"


def output_name(relative):
    return relative[:-len(".proto")].replace("/", "_") + ".pb.swift"


def generate(root, out_dir):
    """Returns {file name: Swift source} for every .proto file under `root`."""
    relatives = []
    for directory, _, names in os.walk(root):
        for name in names:
            if name.endswith(".proto"):
                relatives.append(os.path.relpath(os.path.join(directory, name), root))
    relatives.sort()
    files = {}
    for relative in relatives:
        load(root, relative, files)
    resolve(files)
    # Generated code outside the Wire module (test fixtures) imports the runtime.
    imports_module = None if os.path.normpath(out_dir).startswith(os.path.join("Sources", "Wire")) else "Wire"
    return {output_name(r): generate_file(files[r], imports_module) for r in relatives}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="generate into a temporary directory and fail if the committed files differ")
    parser.add_argument("--root", help="generate from this proto root only (with --out) instead of the project's")
    parser.add_argument("--out", help="the output directory for --root")
    args = parser.parse_args()
    if bool(args.root) != bool(args.out):
        parser.error("--root and --out go together")
    jobs = [(args.root, args.out)] if args.root else JOBS
    stale = []
    for root, out_dir in jobs:
        try:
            outputs = generate(os.path.join(REPO, root), os.path.relpath(os.path.join(REPO, out_dir), REPO))
        except ProtoSyntaxError as error:
            print(f"protogen: {error}", file=sys.stderr)
            return 2
        target = os.path.join(REPO, out_dir)
        if args.check:
            with tempfile.TemporaryDirectory() as scratch:
                for name, text in outputs.items():
                    with open(os.path.join(scratch, name), "w", encoding="utf-8") as f:
                        f.write(text)
                existing = set(os.listdir(target)) if os.path.isdir(target) else set()
                for name in sorted(existing | set(outputs)):
                    if not name.endswith(".pb.swift"):
                        continue
                    old_path, new_path = os.path.join(target, name), os.path.join(scratch, name)
                    old = open(old_path, encoding="utf-8").read().splitlines(True) if name in existing else []
                    new = open(new_path, encoding="utf-8").read().splitlines(True) if name in outputs else []
                    if old != new:
                        stale.append(os.path.join(out_dir, name))
                        sys.stderr.writelines(difflib.unified_diff(old, new, os.path.join(out_dir, name),
                                                                   "regenerated", n=1))
        else:
            os.makedirs(target, exist_ok=True)
            for name in os.listdir(target):
                if name.endswith(".pb.swift") and name not in outputs:
                    os.remove(os.path.join(target, name))
            for name, text in outputs.items():
                with open(os.path.join(target, name), "w", encoding="utf-8") as f:
                    f.write(text)
    if stale:
        print("protogen: out of date (run `python3 scripts/protogen.py`): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
