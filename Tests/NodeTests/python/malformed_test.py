#!/usr/bin/env python3
"""Malformed and hostile HTTP/2 / gRPC input against a running `typeahead node`, with the `h2`
package for framing (and hand-built bytes where h2 would refuse to misbehave).

Usage: malformed_test.py --addr HOST:PORT --pid NODE_PID --max-message-bytes N

Each case runs on its own connection; after each, a fresh connection must still get a good
Suggest answer. At the end the node's resident set (VmRSS) must stay bounded. Prints one line per
check and exits non-zero if any failed.
"""
import argparse
import socket
import struct
import sys
import time
import traceback

import h2.config
import h2.connection
import h2.events
import h2.exceptions

from h2client import SUGGEST, Connection, frame_bytes, grpc_frame, grpc_status, rss_kib, suggest_message
from report import check, failures, finish



def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--addr", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--max-message-bytes", type=int, required=True)
    parser.add_argument("--rss-limit-mib", type=int, default=300)
    args = parser.parse_args()
    host, port = args.addr.rsplit(":", 1)
    port = int(port)
    limit = args.max_message_bytes

    def still_serving(after):
        c = Connection(host, port)
        try:
            s = c.wait(c.request(SUGGEST, grpc_frame(suggest_message("red sh"))))
            good = s["headers"].get(":status") == "200" and grpc_status(s) == 0 and len(s["data"]) > 5
            check(f"fresh connection still served after {after}", good, str(s)[:300])
        finally:
            c.close()

    def grpc_case(name, body, expected, extra=(), path=SUGGEST):
        c = Connection(host, port)
        try:
            s = c.wait(c.request(path, body, extra=extra))
            check(name, s["headers"].get(":status") == "200" and grpc_status(s) == expected,
                  f"expected grpc-status {expected}, got {str(s)[:300]}")
        finally:
            c.close()
        still_serving(name)

    still_serving("nothing")
    rss_start = rss_kib(args.pid)

    # 1. Bad connection preface: the server closes the connection.
    sock = socket.create_connection((host, port), timeout=5)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: node\r\n\r\n" + b"\x00" * 64)
    closed = False
    deadline = time.monotonic() + 5
    try:
        while time.monotonic() < deadline:
            if not sock.recv(65536):
                closed = True
                break
    except (ConnectionResetError, socket.timeout):
        closed = True
    sock.close()
    check("bad preface: connection closed", closed)
    still_serving("bad preface")

    # 2. DATA on stream 0: GOAWAY with PROTOCOL_ERROR.
    c = Connection(host, port)
    c.sock.sendall(frame_bytes(0x0, 0x0, 0, b"oops"))
    deadline = time.monotonic() + 5
    while c.terminated is None and not c.closed and time.monotonic() < deadline:
        c.pump(0.2)
    check("DATA on stream 0: GOAWAY PROTOCOL_ERROR", c.terminated == h2.errors.ErrorCodes.PROTOCOL_ERROR,
          f"terminated={c.terminated} closed={c.closed}")
    c.close()
    still_serving("DATA on stream 0")

    # 3. Header flood: one header block (HEADERS + CONTINUATION) over the 16 KiB header list limit.
    #    The stream is refused (grpc-status 8 or RST_STREAM), other streams on the connection go on.
    c = Connection(host, port)
    flood = [(f"x-flood-{i}", "v" * 200) for i in range(200)]  # about 46 KB of header list
    flooded = c.request(SUGGEST, grpc_frame(suggest_message("red sh")), extra=flood)
    s = c.wait(flooded)
    refused = s["reset"] is not None or grpc_status(s) == 8 or s["headers"].get(":status") == "431"
    check("header list over the limit: stream refused", refused and not c.closed, str(s)[:300])
    good = c.wait(c.request(SUGGEST, grpc_frame(suggest_message("red sh"))))
    check("header flood: same connection still serves another stream", grpc_status(good) == 0 and len(good["data"]) > 5,
          str(good)[:300])
    c.close()
    still_serving("header flood")

    # 3b. CONTINUATION flood: a header block that never ends (no END_HEADERS), 32 MiB of it.
    #     The node must not buffer it: it either ends the connection or keeps discarding.
    c = Connection(host, port)
    block = b""
    i = 0
    while len(block) < 16000:
        name = f"x-c{i}".encode()
        block += b"\x10" + bytes([len(name)]) + name + b"\x7f\x00" + b"w" * 127  # literal, never indexed, new name
        i += 1
    head = b"\x83\x86" + b"\x41\x04node" + b"\x44" + bytes([len(SUGGEST)]) + SUGGEST.encode()  # POST, http, :authority, :path
    sent = 0
    try:
        c.sock.sendall(frame_bytes(0x1, 0x0, 1, head))  # HEADERS without END_HEADERS
        for _ in range(2048):
            c.sock.sendall(frame_bytes(0x9, 0x0, 1, block))
            sent += len(block)
    except OSError:
        pass
    c.pump(1.0)
    rss_after_flood = rss_kib(args.pid)
    check(f"CONTINUATION flood ({sent >> 20} MiB sent): node RSS bounded",
          0 < rss_after_flood < args.rss_limit_mib * 1024, f"VmRSS {rss_after_flood} KiB")
    c.close()
    still_serving("CONTINUATION flood")

    # 4. gRPC framing errors.
    message = suggest_message("red sh")
    grpc_case("length prefix larger than the body: grpc-status 3 (INVALID_ARGUMENT)",
              struct.pack(">BI", 0, len(message) + 100) + message, 3)
    grpc_case("truncated length prefix: grpc-status 3", b"\x00\x00\x00", 3)
    grpc_case("compressed flag without grpc-encoding: grpc-status 12 (UNIMPLEMENTED)", grpc_frame(message, flag=1), 12)
    grpc_case("garbage protobuf bytes: grpc-status 3", grpc_frame(b"\xff" * 11), 3)
    grpc_case("protobuf with invalid wire type: grpc-status 3", grpc_frame(b"\x0f\x01"), 3)
    grpc_case("two messages to a unary method: grpc-status 3", grpc_frame(message) * 2, 3)
    grpc_case("grpc-timeout 1n: grpc-status 4 (DEADLINE_EXCEEDED)", grpc_frame(message), 4,
              extra=[("grpc-timeout", "1n")])
    grpc_case("malformed grpc-timeout: grpc-status 3", grpc_frame(message), 3, extra=[("grpc-timeout", "soon")])

    # 5. A body over the limit: grpc-status 8 (RESOURCE_EXHAUSTED), nothing buffered past the limit.
    c = Connection(host, port)
    big = b"\x0a" + b"\x80\x80\x80\x01" + b"x" * (2 * limit)  # a (never decoded) 2x-limit string field
    stream_id = c.request(SUGGEST, grpc_frame(big))
    s = c.wait(stream_id, timeout=20)
    check(f"body of {len(big)} bytes over the {limit}-byte limit: grpc-status 8", grpc_status(s) == 8, str(s)[:300])
    c.close()
    still_serving("body over the limit")
    c = Connection(host, port)
    s = c.wait(c.request(SUGGEST, struct.pack(">BI", 0, limit + 1) + message))
    check("length prefix over the limit: grpc-status 8", grpc_status(s) == 8, str(s)[:300])
    c.close()

    # 6. Wrong content type: 415.
    c = Connection(host, port)
    s = c.wait(c.request(SUGGEST, b"hello", content_type="text/plain"))
    check("wrong content-type: HTTP 415", s["headers"].get(":status") == "415", str(s)[:300])
    s = c.wait(c.request(SUGGEST, b"hello", content_type=None))
    check("no content-type: HTTP 415", s["headers"].get(":status") == "415", str(s)[:300])
    s = c.wait(c.request(SUGGEST, method="PUT", content_type="application/grpc"))
    check("PUT: HTTP 405", s["headers"].get(":status") == "405", str(s)[:300])
    c.close()
    still_serving("wrong content-type")

    # 7. Many header floods in a row, each on its own connection; memory stays bounded.
    for round_ in range(20):
        c = Connection(host, port)
        c.request(SUGGEST, grpc_frame(message), extra=[(f"x-f{i}", "z" * 1000) for i in range(100)])
        c.pump(0.05)
        c.close()
    still_serving("20 header floods")
    rss_end = rss_kib(args.pid)
    check(f"node RSS bounded after the floods (start {rss_start >> 10} MiB, end {rss_end >> 10} MiB)",
          0 < rss_end < args.rss_limit_mib * 1024, f"VmRSS {rss_end} KiB")


if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
        print("FAIL unexpected exception", flush=True)
        sys.exit(2)
    sys.exit(finish())
