#!/usr/bin/env python3
"""The reference side of the WireTests cross-check: Google's protobuf library for Python.

ReferenceCrossCheckTests (Swift) runs this script with Foundation.Process. Every command reads
and writes text files of one message per line, hex-encoded ("-" for no bytes), so that no binary
crosses a pipe:

    crosscheck.py --work DIR setup                   protoc the .proto files into DIR/py
    crosscheck.py --work DIR decode IN OUT           IN: "name hex"; parse each with the reference
                                                     library (no field may be unknown to it), write
                                                     "name hex" of its own serialization
    crosscheck.py --work DIR generate SEED N OUT     N random messages of every type: "name hex exact"
                                                     (exact: no map has two entries, so any two
                                                     encoders must agree byte for byte)
    crosscheck.py --work DIR compare IN              IN: "name hex hex"; both must parse to equal messages
    crosscheck.py --work DIR json IN                 IN: "name hex jsonhex"; the JSON text must parse
                                                     (json_format, unknown names refused) to the same
                                                     message as the binary

Exit status 0 on success; 1 with the first mismatch on stderr; 3 when the protobuf tools are
missing (run scripts/setup.sh).
"""

import argparse
import os
import random
import struct
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# (include root, files): health.proto is left out: its package `grpc` would collide with grpcio's.
PROTOS = [
    (os.path.join(REPO, "proto"), ["typeahead/v1/typeahead.proto", "typeahead/v1/shard.proto"]),
    (os.path.join(REPO, "Tests/WireTests/Fixtures/proto"), ["wiretest/v1/common.proto", "wiretest/v1/coverage.proto"]),
]
MODULES = ["typeahead.v1.typeahead_pb2", "typeahead.v1.shard_pb2",
           "wiretest.v1.common_pb2", "wiretest.v1.coverage_pb2"]


def require_tools():
    try:
        import grpc_tools  # noqa: F401
        import google.protobuf  # noqa: F401
    except ImportError as error:
        print(f"python3 cannot import the protobuf tools ({error}): run scripts/setup.sh, which "
              "pip-installs scripts/requirements.txt (grpcio-tools, protobuf)", file=sys.stderr)
        sys.exit(3)


def setup(work):
    out = os.path.join(work, "py")
    os.makedirs(out, exist_ok=True)
    for root, files in PROTOS:
        command = [sys.executable, "-m", "grpc_tools.protoc", f"-I{root}", f"--python_out={out}"] + files
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            print(f"protoc failed: {' '.join(command)}\n{result.stderr}", file=sys.stderr)
            sys.exit(1)


def load(work):
    sys.path.insert(0, os.path.join(work, "py"))
    import importlib
    for module in MODULES:
        importlib.import_module(module)
    from google.protobuf import descriptor_pool, message_factory
    pool = descriptor_pool.Default()

    def message_class(name):
        return message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
    return message_class


def is_repeated(field):
    flag = getattr(field, "is_repeated", None)
    if flag is not None:
        return flag() if callable(flag) else flag
    return field.label == field.LABEL_REPEATED


def is_map(field):
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def unknown_fields(message, path="", found=None):
    """Paths of every message (recursively) that holds fields its schema does not know."""
    from google.protobuf import unknown_fields as uf
    found = [] if found is None else found
    if len(uf.UnknownFieldSet(message)) > 0:
        found.append(path or "(top level)")
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if is_map(field):
            if field.message_type.fields_by_name["value"].message_type is not None:
                for key, item in value.items():
                    unknown_fields(item, f"{path}.{field.name}[{key!r}]", found)
        elif is_repeated(field):
            for i, item in enumerate(value):
                unknown_fields(item, f"{path}.{field.name}[{i}]", found)
        else:
            unknown_fields(value, f"{path}.{field.name}", found)
    return found


# MARK: Random messages

STRINGS = ["", "a", "red", " ", "Zürich", "東京", "🙂", "\x00", "é", "\"\\", "Straße", "x" * 130, "\u2028"]


class Generator:
    def __init__(self, seed):
        self.rnd = random.Random(seed)
        self.exact = True

    def scalar(self, field):
        r, t = self.rnd, field.type
        F = field
        edges64 = [0, 1, 127, 128, 16383, 16384, 2**32 - 1, 2**63 - 1, 2**64 - 1]
        if t in (F.TYPE_UINT64, F.TYPE_FIXED64):
            return r.choice(edges64 + [r.getrandbits(r.randint(1, 64))])
        if t in (F.TYPE_UINT32, F.TYPE_FIXED32):
            return r.choice([0, 1, 127, 128, 2**32 - 1, r.getrandbits(r.randint(1, 32))])
        if t in (F.TYPE_INT64, F.TYPE_SINT64, F.TYPE_SFIXED64):
            return r.choice([0, -1, 1, -2**63, 2**63 - 1, r.getrandbits(63) - 2**62 * r.randint(0, 1)])
        if t in (F.TYPE_INT32, F.TYPE_SINT32, F.TYPE_SFIXED32):
            return r.choice([0, -1, 1, -2**31, 2**31 - 1, r.randint(-2**31, 2**31 - 1)])
        if t == F.TYPE_DOUBLE:
            return r.choice([0.0, -0.0, 1.5, -2.25e300, float("inf"), 5e-324, float(r.randint(-1000, 1000))])
        if t == F.TYPE_FLOAT:
            value = r.choice([0.0, -0.0, 1.5, float("-inf"), 1e-45, r.uniform(-1e6, 1e6)])
            return struct.unpack("<f", struct.pack("<f", value))[0]
        if t == F.TYPE_BOOL:
            return r.random() < 0.5
        if t == F.TYPE_STRING:
            return "".join(r.choice(STRINGS) for _ in range(r.randint(0, 3)))
        if t == F.TYPE_BYTES:
            return bytes(r.getrandbits(8) for _ in range(r.randint(0, 5)))
        if t == F.TYPE_ENUM:
            known = [v.number for v in field.enum_type.values]
            return r.choice(known + [known[-1] + 1000])   # open enums keep unknown values
        raise ValueError(f"unexpected type {t} of {field.full_name}")

    def fill(self, message, depth):
        r = self.rnd
        for field in message.DESCRIPTOR.fields:
            if r.random() < 0.35:
                continue
            if is_map(field):
                key_field = field.message_type.fields_by_name["key"]
                value_field = field.message_type.fields_by_name["value"]
                target = getattr(message, field.name)
                count = r.randint(0, 3)
                for _ in range(count):
                    key = self.scalar(key_field)
                    if value_field.message_type is not None:
                        self.fill(target[key], depth + 1)
                    else:
                        target[key] = self.scalar(value_field)
                if len(target) > 1:
                    self.exact = False
            elif is_repeated(field):
                target = getattr(message, field.name)
                for _ in range(r.randint(0, 3 if depth < 3 else 0)):
                    if field.message_type is not None:
                        self.fill(target.add(), depth + 1)
                    else:
                        target.append(self.scalar(field))
            elif field.message_type is not None:
                if depth < 4:
                    getattr(message, field.name).SetInParent()
                    self.fill(getattr(message, field.name), depth + 1)
            else:
                setattr(message, field.name, self.scalar(field))


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.split() for line in f.read().splitlines() if line.strip()]


def parse(message_class, name, hex_text, where):
    from google.protobuf.message import DecodeError
    message = message_class(name)()
    try:
        message.ParseFromString(unhex(hex_text))
    except DecodeError as error:
        fail(f"{where}: the reference library cannot parse {name} {hex_text}: {error}")
    return message


def fail(text):
    print(text, file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", required=True)
    parser.add_argument("command")
    parser.add_argument("args", nargs="*")
    args = parser.parse_args()
    require_tools()
    if args.command == "setup":
        setup(args.work)
        return
    message_class = load(args.work)
    from google.protobuf import json_format

    if args.command == "decode":
        source, target = args.args
        out = []
        for number, (name, hex_text) in enumerate(read_lines(source), 1):
            message = parse(message_class, name, hex_text, f"line {number}")
            unknown = unknown_fields(message)
            if unknown:
                fail(f"line {number}: {name} has fields the reference schema does not know at {unknown}: {hex_text}")
            out.append(f"{name} {tohex(message.SerializeToString(deterministic=True))}")
        with open(target, "w", encoding="utf-8") as f:
            f.write("\n".join(out) + "\n")
    elif args.command == "generate":
        seed, count, target = int(args.args[0]), int(args.args[1]), args.args[2]
        out = []
        from google.protobuf import descriptor_pool
        pool = descriptor_pool.Default()
        names = []
        for module in MODULES:
            file = pool.FindFileByName(sys.modules[module].DESCRIPTOR.name)

            def walk(descriptor):
                if descriptor.GetOptions().map_entry:
                    return
                names.append(descriptor.full_name)
                for nested in descriptor.nested_types:
                    walk(nested)
            for descriptor in file.message_types_by_name.values():
                walk(descriptor)
        for name in names:
            for i in range(count):
                generator = Generator(seed * 100003 + i * 7919 + hash_name(name))
                message = message_class(name)()
                generator.fill(message, 0)
                exact = "exact" if generator.exact else "maps"
                out.append(f"{name} {tohex(message.SerializeToString(deterministic=True))} {exact}")
        with open(target, "w", encoding="utf-8") as f:
            f.write("\n".join(out) + "\n")
    elif args.command == "compare":
        for number, (name, first, second) in enumerate(read_lines(args.args[0]), 1):
            a = parse(message_class, name, first, f"line {number}")
            b = parse(message_class, name, second, f"line {number}")
            if a != b:
                fail(f"line {number}: {name} changed on its way through Swift:\n  sent {first}\n  back {second}\n"
                     f"  sent: {json_format.MessageToJson(a)}\n  back: {json_format.MessageToJson(b)}")
    elif args.command == "json":
        for number, (name, hex_text, json_hex) in enumerate(read_lines(args.args[0]), 1):
            binary = parse(message_class, name, hex_text, f"line {number}")
            text = bytes.fromhex(json_hex).decode("utf-8")
            try:
                parsed = json_format.Parse(text, message_class(name)())
            except json_format.ParseError as error:
                fail(f"line {number}: the reference JSON parser refuses Swift's JSON for {name}: {error}\n  {text}")
            if parsed != binary:
                fail(f"line {number}: {name}: the JSON and the binary form differ\n  json: {text}\n"
                     f"  binary: {json_format.MessageToJson(binary)}")
    else:
        fail(f"unknown command {args.command}")


def tohex(data):
    """Hex digits, or "-" for no bytes (so that every line has all its columns)."""
    return data.hex() or "-"


def unhex(text):
    return b"" if text == "-" else bytes.fromhex(text)


def hash_name(name):
    # Stable across runs (Python's hash() of str is salted per process).
    value = 0
    for byte in name.encode():
        value = (value * 131 + byte) % 1000003
    return value


if __name__ == "__main__":
    main()
