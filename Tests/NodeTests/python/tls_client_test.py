"""A node serving TLS, through grpcio (the real gRPC client) with TLS channel credentials.

    tls_client_test.py --addr 127.0.0.1:PORT --ca CA.crt --proto-dir proto

Checks that Suggest and Search answer over a secure channel that trusts the CA, and that a channel
without the CA, or a cleartext one, is refused (UNAVAILABLE). Prints one line per check and PASSED
or FAILED last (report.py)."""

import argparse
import sys

import grpc
from grpc_client_test import generate_stubs
from report import check, finish


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--addr", required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--proto-dir", required=True)
    args = parser.parse_args()
    generate_stubs(args.proto_dir)
    from typeahead.v1 import typeahead_pb2 as ta, typeahead_pb2_grpc as ta_grpc

    with open(args.ca, "rb") as f:
        credentials = grpc.ssl_channel_credentials(root_certificates=f.read())
    with grpc.secure_channel(args.addr, credentials) as channel:
        stub = ta_grpc.TypeaheadStub(channel)
        answer = stub.Suggest(ta.SuggestRequest(text="red sh"), timeout=10)
        check("suggest over TLS", len(answer.entries) > 0, str(answer)[:200])
        page = stub.Search(ta.SearchRequest(text="red", page_size=3), timeout=10)
        check("search over TLS", len(page.hits) == 3 and page.total_hits >= 3, str(page)[:200])

    for name, channel in [("without the CA", grpc.secure_channel(args.addr, grpc.ssl_channel_credentials())),
                          ("in cleartext", grpc.insecure_channel(args.addr))]:
        with channel:
            try:
                ta_grpc.TypeaheadStub(channel).Suggest(ta.SuggestRequest(text="red"), timeout=5)
                check(f"refused {name}", False, "answered")
            except grpc.RpcError as error:
                check(f"refused {name}", error.code() == grpc.StatusCode.UNAVAILABLE, f"{error.code()}: {error.details()}")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
