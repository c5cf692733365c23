"""What the node's Python test clients share: an HTTP/2 client connection over h2 that also lets a
test misbehave (raw frames), gRPC framing, and reading a process's resident set."""
import socket
import struct
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions


def read_or_close(connection, timeout):
    """One recv on `connection.sock` within `timeout`: the bytes, or None when nothing came or the
    peer closed or reset (then `connection.closed` is set)."""
    connection.sock.settimeout(timeout)
    try:
        data = connection.sock.recv(1 << 20)
    except (socket.timeout, BlockingIOError):
        return None
    except OSError:
        data = b""
    if not data:
        connection.closed = True
        return None
    return data


def grpc_frame(message, flag=0):
    return struct.pack(">BI", flag, len(message)) + message


def suggest_message(text):
    encoded = text.encode()
    return b"\x0a" + bytes([len(encoded)]) + encoded  # SuggestRequest.text (field 1), short text only


def frame_bytes(frame_type, flags, stream_id, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([frame_type, flags]) + struct.pack(">I", stream_id) + payload


class Connection:
    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=10)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        self.flush()
        self.streams = {}
        self.terminated = None  # the GOAWAY's error code, once received
        self.closed = False

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def state(self, stream_id):
        return self.streams.setdefault(stream_id, {"headers": {}, "data": b"", "trailers": {}, "ended": False, "reset": None})

    def pump(self, timeout):
        """Reads and handles whatever arrives within `timeout` seconds (one recv)."""
        data = read_or_close(self, timeout)
        if data is None:
            return
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.ProtocolError:
            self.closed = True
            return
        for event in events:
            if isinstance(event, h2.events.ResponseReceived):
                self.state(event.stream_id)["headers"] = dict(event.headers)
            elif isinstance(event, h2.events.TrailersReceived):
                self.state(event.stream_id)["trailers"] = dict(event.headers)
            elif isinstance(event, h2.events.DataReceived):
                self.state(event.stream_id)["data"] += event.data
                try:
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                except h2.exceptions.ProtocolError:
                    pass  # after a GOAWAY h2 sends nothing more; small responses fit the initial windows
            elif isinstance(event, h2.events.StreamEnded):
                self.state(event.stream_id)["ended"] = True
            elif isinstance(event, h2.events.StreamReset):
                self.state(event.stream_id)["reset"] = event.error_code
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.terminated = event.error_code
        try:
            self.flush()
        except OSError:
            self.closed = True

    def finished(self, stream_id):
        s = self.state(stream_id)
        # A GOAWAY alone does not end a stream: NO_ERROR lets streams up to its last-stream-id finish.
        return s["ended"] or s["reset"] is not None or self.closed

    def wait(self, stream_id, timeout=10):
        deadline = time.monotonic() + timeout
        while not self.finished(stream_id) and time.monotonic() < deadline:
            self.pump(0.2)
        return self.state(stream_id)

    def request(self, path, body=b"", content_type="application/grpc", extra=(), method="POST", end=True):
        stream_id = self.conn.get_next_available_stream_id()
        headers = [(":method", method), (":scheme", "http"), (":path", path), (":authority", "node")]
        if content_type:
            headers.append(("content-type", content_type))
        headers += [("te", "trailers")] + list(extra)
        self.conn.send_headers(stream_id, headers, end_stream=(not body and end))
        self.flush()
        if body:
            self.send_body(stream_id, body, end)
        return stream_id

    def send_body(self, stream_id, body, end=True):
        """Sends as flow control allows; stops early if the server answers or resets the stream."""
        offset = 0
        while offset < len(body):
            if self.finished(stream_id):
                return False
            window = min(self.conn.local_flow_control_window(stream_id), self.conn.max_outbound_frame_size)
            if window <= 0:
                self.pump(0.2)
                continue
            chunk = body[offset:offset + window]
            offset += len(chunk)
            try:
                self.conn.send_data(stream_id, chunk, end_stream=(end and offset == len(body)))
                self.flush()
            except (h2.exceptions.StreamClosedError, OSError):
                return False
            self.pump(0.001)
        return True


def grpc_status(state):
    value = state["trailers"].get("grpc-status") or state["headers"].get("grpc-status")
    return int(value) if value is not None else None


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


SUGGEST = "/typeahead.v1.Typeahead/Suggest"
