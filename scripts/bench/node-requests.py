#!/usr/bin/env python3
"""Writes gRPC Suggest request bodies (length-prefixed, one file per query) for h2load -d, and asks
the running node for each response so the caller knows the response sizes.

Usage: node-requests.py PROTO_DIR OUT_DIR HOST:PORT QUERY...
Prints one line per query: FILE RESPONSE_BYTES (the framed gRPC response message, 5-byte prefix included).
"""
import os
import struct
import subprocess
import sys
import tempfile


def main():
    proto_dir, out_dir, address, queries = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    stubs = tempfile.mkdtemp(prefix="typeahead-bench-stubs-")
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", proto_dir, f"--python_out={stubs}",
                    f"--grpc_python_out={stubs}", "typeahead/v1/typeahead.proto"], check=True)
    sys.path.insert(0, stubs)
    import grpc
    from typeahead.v1 import typeahead_pb2 as ta, typeahead_pb2_grpc as ta_grpc

    client = ta_grpc.TypeaheadStub(grpc.insecure_channel(address))
    for i, query in enumerate(queries):
        request = ta.SuggestRequest(text=query)
        body = request.SerializeToString()
        path = os.path.join(out_dir, f"suggest-{i}.bin")
        with open(path, "wb") as f:
            f.write(struct.pack(">BI", 0, len(body)) + body)
        response = client.Suggest(request, timeout=10)
        print(path, len(response.SerializeToString()) + 5, len(response.entries), flush=True)


if __name__ == "__main__":
    main()
