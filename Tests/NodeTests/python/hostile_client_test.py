#!/usr/bin/env python3
"""The hostile-client probe of a node, as a suite: what a careless or malicious client sends, over
raw sockets (HTTP/1.1) and HTTP/2 frames (the `h2` package, and hand-built frames where h2 would
refuse to misbehave). Each case asserts the answer the node must give; after every case a fresh
connection must still be served, and at the end the node's resident set must stay bounded.

Usage: hostile_client_test.py --addr HOST:PORT --pid PID --admin-token TOKEN --shard-dir DIR
                              --request-head-timeout SECONDS [--rss-limit-mib N]

The node serves deploy/catalog/sample.jsonl. Prints one line per check ("ok …" or "FAIL …"), then
PASSED, or exits non-zero. Run by NodeTests.testHostileClients; the same cases are what issue 14
lists as held or fixed, so that they stay that way.
"""
import argparse
import json
import socket
import struct
import sys
import time
import traceback
import urllib.parse

import h2.errors

from h2client import SUGGEST, Connection, frame_bytes, grpc_frame, grpc_status, rss_kib
from report import check, failures, finish

ENHANCE_YOUR_CALM = 0xB
SEARCH = "/typeahead.v1.Typeahead/Search"


# Protobuf by hand: the few messages the cases need.
def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def field_bytes(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def field_varint(number, value):
    return varint(number << 3) + varint(value)


def entry(entry_id, title):
    return field_bytes(1, entry_id.encode()) + field_bytes(2, title.encode()) + field_varint(4, 1)


class HTTP1:
    """One raw TCP connection speaking HTTP/1.1 by hand."""

    def __init__(self, host, port, timeout=5):
        self.sock = socket.create_connection((host, port), timeout=timeout)

    def send(self, data):
        self.sock.sendall(data if isinstance(data, bytes) else data.encode())

    def read_all(self, timeout=5):
        """Everything until the server closes or `timeout` passes quietly; (bytes, closed)."""
        self.sock.settimeout(timeout)
        data = b""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return data, True
                data += chunk
        except socket.timeout:
            return data, False
        except ConnectionResetError:
            return data, True

    def close(self):
        self.sock.close()


def statuses(raw):
    """The status codes of the responses in `raw`, read one after another by their lengths."""
    found = []
    while raw.startswith(b"HTTP/1.1 "):
        end = raw.find(b"\r\n\r\n")
        if end < 0:
            break
        head = raw[:end].split(b"\r\n")
        found.append(int(head[0].split(b" ")[1]))
        length = 0
        for line in head[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        raw = raw[end + 4 + length:]
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--addr", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--admin-token", required=True)
    parser.add_argument("--shard-dir", required=True)
    parser.add_argument("--request-head-timeout", type=float, required=True)
    parser.add_argument("--rss-limit-mib", type=int, default=400)
    args = parser.parse_args()
    host, port = args.addr.rsplit(":", 1)
    port = int(port)
    admin = [("authorization", "Bearer " + args.admin_token)]

    def h2():
        return Connection(host, port)

    def still_serving(after):
        c = h2()
        try:
            s = c.wait(c.request(SUGGEST, grpc_frame(field_bytes(1, b"red"))))
            check(f"after {after}: a fresh connection is served", grpc_status(s) == 0 and len(s["data"]) > 5, str(s)[:300])
        finally:
            c.close()

    def grpc(path, message, extra=(), c=None):
        own = c is None
        c = c or h2()
        try:
            return c.wait(c.request(path, grpc_frame(message), extra=extra))
        finally:
            if own:
                c.close()

    def json_call(path, body, content_type="application/json"):
        c = h2()
        try:
            s = c.wait(c.request(path, body if isinstance(body, bytes) else body.encode(), content_type=content_type))
            return s["headers"].get(":status"), s["headers"].get("content-type", ""), s["data"]
        finally:
            c.close()

    def get(path):
        c = h2()
        try:
            s = c.wait(c.request(path, method="GET", content_type=None))
            return s["headers"].get(":status"), s["headers"].get("content-type", ""), s["data"]
        finally:
            c.close()

    rss_start = rss_kib(args.pid)

    # --- HTTP/2 floods: each ends the connection, never the node. ---
    def flood(name, frames, expect_calm=True):
        c = h2()
        try:
            try:
                for start in range(0, len(frames), 4096):
                    c.sock.sendall(b"".join(frames[start:start + 4096]))
            except OSError:
                pass  # the node closed first: what a flood should get
            deadline = time.monotonic() + 10
            while not c.closed and c.terminated is None and time.monotonic() < deadline:
                c.pump(0.2)
            ended = c.closed or c.terminated is not None
            detail = f"closed={c.closed} goaway={c.terminated}"
            if expect_calm and c.terminated is not None:
                check(f"{name}: GOAWAY ENHANCE_YOUR_CALM", c.terminated == ENHANCE_YOUR_CALM, detail)
            else:
                check(f"{name}: connection ended", ended, detail)
        finally:
            c.close()
        still_serving(name)

    flood("SETTINGS flood", [frame_bytes(0x4, 0, 0, b"")] * 20000, expect_calm=False)
    flood("PING flood", [frame_bytes(0x6, 0, 0, b"12345678")] * 20000, expect_calm=False)

    # CONTINUATION flood: one header block that never ends.
    block = b"\x40\x05x-pad\x0a" + b"a" * 10  # literal header with incremental indexing
    frames = [frame_bytes(0x1, 0, 1, b"\x82\x86\x84\x41\x04node")]  # HEADERS without END_HEADERS
    frames += [frame_bytes(0x9, 0, 1, block)] * 20000
    flood("CONTINUATION flood", frames, expect_calm=False)

    # Rapid reset (CVE-2023-44487): open and cancel streams as fast as possible, more than the
    # node's burst allowance (20,000) at once, as hand-built frames (h2 is too slow to flood).
    head = b"\x83\x86\x84\x41\x04node"  # :method POST, :scheme http, :path /, :authority node
    frames = []
    for n in range(40000):
        stream_id = 2 * n + 1
        frames.append(frame_bytes(0x1, 0x4, stream_id, head))  # HEADERS, END_HEADERS
        frames.append(frame_bytes(0x3, 0, stream_id, struct.pack(">I", 8)))  # RST_STREAM CANCEL
    c = h2()
    try:
        try:
            for start in range(0, len(frames), 8192):
                c.sock.sendall(b"".join(frames[start:start + 8192]))
                c.pump(0.001)
        except OSError:
            pass
        deadline = time.monotonic() + 10
        while not c.closed and c.terminated is None and time.monotonic() < deadline:
            c.pump(0.2)
        check("rapid reset: GOAWAY ENHANCE_YOUR_CALM", c.terminated == ENHANCE_YOUR_CALM, f"goaway={c.terminated} closed={c.closed}")
    finally:
        c.close()
    still_serving("rapid reset")

    # --- HTTP/1.1 by hand. ---
    def http1(name, raw, timeout=5):
        conn = HTTP1(host, port)
        try:
            conn.send(raw)
            return conn.read_all(timeout)
        finally:
            conn.close()

    data, closed = http1("smuggling", "POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                                      "0\r\n\r\nGET /v1/suggest?q=smuggled HTTP/1.1\r\nHost: x\r\n\r\n")
    check("smuggling (Content-Length with chunked): one 400, nothing smuggled", statuses(data) == [400] and closed, data[:300])
    data, closed = http1("two lengths", "POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 30\r\n\r\nabc")
    check("two Content-Lengths: 400", statuses(data) == [400], data[:300])
    data, closed = http1("pipelining", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/suggest?q=red HTTP/1.1\r\nHost: x\r\n"
                                       "Connection: close\r\n\r\n")
    check("pipelining: two answers in order", statuses(data) == [200, 200] and data.lower().rfind(b"red") > data.find(b"HTTP/1.1 200", 1),
          data[:300])
    for target in ("/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/v1/../../etc/passwd"):
        data, _ = http1("traversal", f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        check(f"path traversal {target}: 404, no file", statuses(data) == [404] and b"root:" not in data, data[:300])
    for name, raw in [("no Host", "GET /healthz HTTP/1.1\r\n\r\n"),
                      ("two Hosts", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
                      ("space before the colon", "GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n"),
                      ("obs-fold", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n")]:
        data, _ = http1(name, raw)
        check(f"RFC 9112, {name}: 400", statuses(data)[:1] == [400], data[:300])
    body = b'{"text":"red"}'
    data, _ = http1("upper-case media type", b"POST " + SUGGEST.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: APPLICATION/JSON\r\n"
                    + b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
    check("APPLICATION/JSON is JSON: 200", statuses(data) == [200], data[:300])

    # Slowloris: a head trickled one byte at a time never completes; the node ends it on time.
    conn = HTTP1(host, port, timeout=args.request_head_timeout * 4 + 5)
    started = time.monotonic()
    try:
        conn.send("GET /v1/suggest?q=red HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        answer, closed = b"", False
        while time.monotonic() - started < args.request_head_timeout * 4:
            try:
                conn.send("a")
            except OSError:
                closed = True
                break
            conn.sock.settimeout(0.25)
            try:
                chunk = conn.sock.recv(4096)
                if not chunk:
                    closed = True
                    break
                answer += chunk
            except socket.timeout:
                pass
        if not closed:
            more, closed = conn.read_all(1)
            answer += more
        elapsed = time.monotonic() - started
        check("slowloris: 408 and closed within the head deadline",
              statuses(answer)[:1] == [408] and closed and elapsed < args.request_head_timeout * 3,
              f"after {elapsed:.1f} s: {answer[:200]!r} closed={closed}")
    finally:
        conn.close()
    still_serving("slowloris")

    # --- Query strings. ---
    status, _, plus = get("/v1/suggest?q=red+sh")
    _, _, spaced = get("/v1/suggest?q=red%20sh")
    check("'+' in a query string is a space", status == "200" and json.loads(plus).get("entries") == json.loads(spaced).get("entries")
          and json.loads(plus).get("entries"), plus[:200])
    for query in ("q=knife%FF", "q=knife%zz", "q=%C3"):
        status, content_type, data = get("/v1/suggest?" + query)
        check(f"invalid encoding {query}: 400 naming the parameter", status == "400" and b"q" in data and "json" in content_type, data[:200])

    # --- JSON bodies. ---
    status, content_type, data = json_call(SUGGEST, '{"text":"red",}')
    check("trailing comma: 400", status == "400", data[:200])
    status, _, data = json_call(SUGGEST, "[" * 100 + "]" * 100)
    check("deep JSON: 400", status == "400", data[:200])
    status, _, data = json_call(SUGGEST, '{"text":"red","revision":"18446744073709551616"}')
    check("revision 2^64: 400, not wrapped", status == "400" and b"revision" in data, data[:200])
    status, _, data = json_call(SUGGEST, '{"text":"red","revision":"18446744073709551615"}')
    check("revision 2^64-1: echoed exactly", status == "200" and json.loads(data).get("revision") == "18446744073709551615", data[:200])
    status, content_type, data = json_call(SUGGEST, '{"text":"' + "a" * (80 << 10) + '"}')
    check("JSON body over the limit on HTTP/2: a JSON error, not gRPC", status in ("413", "429") and "application/json" in content_type,
          f"{status} {content_type} {data[:200]}")
    status, _, data = json_call(SEARCH, '{"text":"red","pageToken":"AQEAAAAAAAAAAAAAAAAAAAAA"}')
    check("tampered page token: 400", status == "400" and b"pageToken" in data, data[:200])
    c = h2()
    try:
        s = c.wait(c.request("/healthz", method="GET", content_type=None, extra=[("x-big", "b" * (70 << 10))]))
        check("health check with an oversized head on HTTP/2: 431 JSON",
              s["headers"].get(":status") == "431" and "json" in s["headers"].get("content-type", ""),
              str(s)[:300])
    finally:
        c.close()

    # --- Malformed gRPC. ---
    c = h2()
    try:
        stream = c.request(SUGGEST, struct.pack(">BI", 1, 3) + b"abc")  # compressed flag, no grpc-encoding
        s = c.wait(stream)
        check("compressed message without an encoding: UNIMPLEMENTED", grpc_status(s) == 12, str(s)[:300])
        stream = c.request(SUGGEST, struct.pack(">BI", 0, 100) + b"abc")  # the length says more than the body has
        s = c.wait(stream)
        check("truncated gRPC message: INVALID_ARGUMENT", grpc_status(s) == 3, str(s)[:300])
    finally:
        c.close()
    still_serving("malformed gRPC")

    # --- Admin access and absurd values. ---
    upsert = field_bytes(1, entry("hostile-1", "hostile probe"))
    s = grpc("/typeahead.v1.Shard/Upsert", upsert)
    check("Upsert without a token: UNAUTHENTICATED", grpc_status(s) == 16, str(s)[:300])
    s = grpc("/typeahead.v1.Shard/Upsert", upsert, extra=[("authorization", "Bearer " + "x" * len(args.admin_token))])
    check("Upsert with a wrong token: UNAUTHENTICATED", grpc_status(s) == 16, str(s)[:300])
    s = grpc("/typeahead.v1.Shard/Upsert", field_bytes(1, entry("dup", "one")) + field_bytes(1, entry("dup", "two")), extra=admin)
    check("duplicate ids in one Upsert: INVALID_ARGUMENT", grpc_status(s) == 3, str(s)[:300])
    for generation in (2 ** 64 - 1, 2 ** 63, 0):
        s = grpc("/typeahead.v1.Shard/Compact", field_varint(1, generation), extra=admin)
        check(f"Compact to generation {generation}: INVALID_ARGUMENT", grpc_status(s) == 3, str(s)[:300])
        s = grpc("/typeahead.v1.Shard/ActivateGeneration", field_varint(1, generation), extra=admin)
        check(f"ActivateGeneration {generation}: INVALID_ARGUMENT", grpc_status(s) == 3, str(s)[:300])
    still_serving("absurd generations")
    s = grpc("/typeahead.v1.Shard/ShardSuggest", field_bytes(1, field_bytes(1, b"red")) + field_varint(2, 999))
    message = urllib.parse.unquote(s["trailers"].get("grpc-message", ""))
    check("ShardSuggest of a missing generation: an error without the shard's path",
          grpc_status(s) not in (None, 0) and args.shard_dir not in message and "/tmp" not in message, message)

    rss_end = rss_kib(args.pid)
    check(f"resident set stays under {args.rss_limit_mib} MiB", rss_end < args.rss_limit_mib * 1024,
          f"{rss_start} KiB at the start, {rss_end} KiB at the end")
    return finish()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:
        traceback.print_exc()
        sys.exit(1)
