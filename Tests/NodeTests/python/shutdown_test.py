#!/usr/bin/env python3
"""Graceful shutdown: SIGTERM while Searches are in flight.

Usage: shutdown_test.py --addr HOST:PORT --pid NODE_PID

Opens Search streams whose request bodies are only half sent (so they are certainly in flight
when the signal lands), plus complete Searches, sends SIGTERM to the node, then finishes the
bodies. Every Search must complete with grpc-status 0 and a message, and the node must announce
the shutdown with GOAWAY (NO_ERROR). The caller checks the exit status and how long the node took.

Framing is hand-built here (hpack for header blocks): the h2 package treats a received GOAWAY as
the end of the connection and refuses the frames that legitimately follow it.
"""
import argparse
import os
import signal
import socket
import struct
import sys
import time
import traceback

import hpack
from h2client import frame_bytes as frame, grpc_frame, read_or_close
from report import check, failures, finish

SEARCH = "/typeahead.v1.Typeahead/Search"


def search_message(text, page_size):
    encoded = text.encode()
    return b"\x0a" + bytes([len(encoded)]) + encoded + b"\x18" + bytes([page_size])  # text=1, page_size=3


class RawConnection:
    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=10)
        self.encoder, self.decoder = hpack.Encoder(), hpack.Decoder()
        self.buffer = b""
        self.streams = {}
        self.goaway = None  # (last_stream_id, error_code)
        self.closed = False
        self.pending_block = None  # (stream_id, bytes, end_stream) while CONTINUATION frames follow
        window = 16 << 20
        self.sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(0x4, 0, 0, struct.pack(">HI", 0x4, window))
                          + frame(0x8, 0, 0, struct.pack(">I", window - 65535)))
        self.next_stream = 1

    def request(self, path, body, end):
        stream_id, self.next_stream = self.next_stream, self.next_stream + 2
        block = self.encoder.encode([(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "node"),
                                     ("content-type", "application/grpc"), ("te", "trailers")])
        self.sock.sendall(frame(0x1, 0x4, stream_id, block) + frame(0x0, 0x1 if end else 0, stream_id, body))
        self.streams[stream_id] = {"headers": {}, "data": b"", "ended": False, "reset": None}
        return stream_id

    def send_data(self, stream_id, data, end):
        self.sock.sendall(frame(0x0, 0x1 if end else 0, stream_id, data))

    def pump(self, timeout):
        data = read_or_close(self, timeout)
        if data is None:
            return
        self.buffer += data
        while len(self.buffer) >= 9:
            length = int.from_bytes(self.buffer[:3], "big")
            if len(self.buffer) < 9 + length:
                break
            frame_type, flags = self.buffer[3], self.buffer[4]
            stream_id = int.from_bytes(self.buffer[5:9], "big") & 0x7FFFFFFF
            payload, self.buffer = self.buffer[9:9 + length], self.buffer[9 + length:]
            self.handle(frame_type, flags, stream_id, payload)

    def handle(self, frame_type, flags, stream_id, payload):
        stream = self.streams.get(stream_id)
        if frame_type == 0x4 and not flags & 0x1:  # SETTINGS: acknowledge
            self.sock.sendall(frame(0x4, 0x1, 0, b""))
        elif frame_type == 0x6 and not flags & 0x1:  # PING: answer
            self.sock.sendall(frame(0x6, 0x1, 0, payload))
        elif frame_type == 0x7:
            self.goaway = (int.from_bytes(payload[:4], "big") & 0x7FFFFFFF, int.from_bytes(payload[4:8], "big"))
        elif frame_type == 0x3 and stream:
            stream["reset"] = int.from_bytes(payload[:4], "big")
        elif frame_type == 0x0 and stream:
            if flags & 0x8:  # PADDED
                payload = payload[1:len(payload) - payload[0]]
            stream["data"] += payload
            if flags & 0x1:
                stream["ended"] = True
        elif frame_type in (0x1, 0x9):
            if frame_type == 0x1:
                if flags & 0x8:
                    payload = payload[1:len(payload) - payload[0]]
                if flags & 0x20:
                    payload = payload[5:]
                self.pending_block = (stream_id, payload, bool(flags & 0x1))
            else:
                sid, block, end = self.pending_block
                self.pending_block = (sid, block + payload, end)
            if flags & 0x4:  # END_HEADERS
                sid, block, end = self.pending_block
                self.pending_block = None
                fields = dict(self.decoder.decode(block))
                if sid in self.streams:
                    self.streams[sid]["headers"].update(fields)
                    if end:
                        self.streams[sid]["ended"] = True

    def wait(self, stream_id, timeout):
        deadline = time.monotonic() + timeout
        stream = self.streams[stream_id]
        while not (stream["ended"] or stream["reset"] is not None or self.closed) and time.monotonic() < deadline:
            self.pump(0.2)
        return stream


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--addr", required=True)
    parser.add_argument("--pid", type=int, required=True)
    args = parser.parse_args()
    host, port = args.addr.rsplit(":", 1)

    c = RawConnection(host, int(port))
    half_open = []
    for text in ["red", "shoe", "s", "e"]:
        body = grpc_frame(search_message(text, 50))
        half_open.append((c.request(SEARCH, body[:3], end=False), body[3:]))
    # The node runs at most 2 × cores searches at once (more are refused with RESOURCE_EXHAUSTED):
    # stay within that on two cores.
    complete = [c.request(SEARCH, grpc_frame(search_message("s", 100)), end=True) for _ in range(3)]
    # Wait until the node has answered the first complete search: it has then read every stream
    # sent before it, so the half-open ones are certainly in flight when the signal arrives.
    deadline = time.monotonic() + 10
    while not c.streams[complete[0]]["ended"] and not c.closed and time.monotonic() < deadline:
        c.pump(0.05)
    os.kill(args.pid, signal.SIGTERM)
    print("sent SIGTERM", flush=True)
    deadline = time.monotonic() + 3
    while c.goaway is None and not c.closed and time.monotonic() < deadline:
        c.pump(0.1)
    check("GOAWAY (NO_ERROR) after SIGTERM, covering every stream opened",
          c.goaway is not None and c.goaway[1] == 0 and c.goaway[0] >= complete[0], f"goaway={c.goaway}")
    last = c.goaway[0] if c.goaway else 0
    time.sleep(0.2)
    for stream_id, rest in half_open:
        c.send_data(stream_id, rest, end=True)
    for stream_id in [s for s, _ in half_open] + complete:
        if stream_id > last:
            # Sent after the node stopped reading new streams: GOAWAY says it never saw it (a client retries it).
            print(f"ok stream {stream_id} is past GOAWAY's last-stream-id {last}: not processed", flush=True)
            continue
        s = c.wait(stream_id, timeout=15)
        check(f"in-flight search on stream {stream_id} completed",
              s["headers"].get("grpc-status") == "0" and len(s["data"]) > 5, str(s)[:300])
    c.sock.close()


if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
        print("FAIL unexpected exception", flush=True)
        sys.exit(2)
    sys.exit(finish())
