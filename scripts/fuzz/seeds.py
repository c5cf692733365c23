#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target into Tests/Fuzz/<target>/seed-*.

The seeds are valid inputs of each parser (and a few near-misses), made with the real encoders:
protobuf messages from the project's .proto files (grpc_tools.protoc), HTTP/2 connections from the
h2 package, page tokens in the engine's documented layout. libFuzzer mutates from there; crashers it
finds are added beside them as crash-* files (see scripts/fuzz.sh). Run from anywhere:

    python3 scripts/fuzz/seeds.py
"""
import base64
import json
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Tests", "Fuzz")


def write(target, name, data):
    directory = os.path.join(OUT, target)
    os.makedirs(directory, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(directory, "seed-" + name), "wb") as f:
        f.write(data)


def protobuf_messages():
    from grpc_tools import protoc
    stubs = tempfile.mkdtemp()
    protos = [os.path.join("typeahead", "v1", n) for n in ("typeahead.proto", "shard.proto", "cluster.proto")]
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    rc = protoc.main(["protoc", "-I" + os.path.join(ROOT, "proto"), "-I" + include, "--python_out=" + stubs] + protos)
    if rc != 0:
        sys.exit("protoc failed")
    sys.path.insert(0, stubs)
    from typeahead.v1 import typeahead_pb2 as t, shard_pb2 as s
    return t, s


def seeds_protobuf():
    t, s = protobuf_messages()
    suggest = t.SuggestRequest(text="red sh", session="abc", revision=7)
    suggest.tokens.add(kind="category", value="Garden")
    suggest.limits.entries = 5
    search = t.SearchRequest(text="garden hose", page_size=20, page_token="AQAAAAAAAAAAAAAAAA")
    upsert = s.UpsertRequest()
    entry = upsert.entries.add(id="e1", title="Garden hose", weight=5)
    entry.categories.append("Garden")
    entry.aliases.append("hose pipe")
    entry.attributes["colour"] = "green"
    append = s.AppendUploadRequest(generation=2, batch=3)
    append.entries.add(id="e2", title="Rake", weight=1)
    shard_suggest = s.ShardSuggestRequest(request=suggest, generation=3)
    response = s.ShardSuggestResponse(generation=3)
    ranked = response.entries.add()
    ranked.hit.id = "e1"
    ranked.hit.title = "Garden hose"
    ranked.hit.categories.append("Garden")
    ranked.hit.highlights.add(start=0, end=6)
    ranked.hit.attributes["colour"] = "green"
    ranked.rank.weight = 5
    ranked.rank.id = "e1"
    response.completions.add(text="garden", term="garden")
    search_response = s.ShardSearchResponse(total_hits=1, generation=3, next_page_token="x")
    search_response.hits.add().CopyFrom(ranked)
    messages = [suggest, search, upsert, append, shard_suggest, response, search_response]
    for selector, message in enumerate(messages):
        write("protobuf", "%d-%s" % (selector, type(message).__name__), bytes([selector]) + message.SerializeToString())
    # gRPC framing (selector 7): two framed messages.
    body = suggest.SerializeToString()
    framed = b"\x00" + struct.pack(">I", len(body)) + body
    write("protobuf", "7-framing", b"\x07" + framed + framed)


def seeds_request_json():
    write("request-json", "suggest", json.dumps({"text": "red sh", "tokens": [{"kind": "category", "value": "Garden"}],
                                                 "limits": {"entries": 5, "categories": 2, "completions": 3},
                                                 "typos": "TYPOS_AUTO", "session": "s1", "revision": "18446744073709551615"}))
    write("request-json", "search", json.dumps({"text": "garden hose", "page_size": 20, "pageToken": "AQ", "sort": 1}))
    write("request-json", "nulls", '{"text": null, "limits": null, "tokens": []}')
    write("request-json", "deep", "[" * 10 + "]" * 10)
    write("request-json", "numbers", '{"revision": 1e3, "limits": {"entries": -1}, "pageSize": 18446744073709551616}')


def seeds_catalog_line():
    write("catalog-line", "full", json.dumps({"id": "12", "title": "Takht-e Qeyşar", "category": "Iran", "weight": 1266,
                                              "aliases": ["Takht-e Azadi", "tkht qysr", "تخت قیصر"],
                                              "attributes": {"country_code": "IR", "lat": "32.05908"}}, ensure_ascii=False))
    write("catalog-line", "categories", '{"id":"p1","title":"python3-django","categories":["python","web"],"weight":10,"description":"Web framework"}')
    write("catalog-line", "bad", '{"id":"","title":"x","weight":-1,"extra":true,}')
    write("catalog-line", "escapes", '{"id":"e\\u00e9","title":"a\\ud83d\\ude00b\\n","weight":18446744073709551615}')


def seeds_http1():
    write("http1", "get", "\x10GET /v1/suggest?q=red+sh&token=category:Pet%20Supplies HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n")
    write("http1", "post", "\x30POST /typeahead.v1.Typeahead/Suggest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          "Content-Length: 16\r\n\r\n{\"text\":\"red s\"}")
    write("http1", "chunked", "\x20POST /v1/search HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n")
    write("http1", "pipelined", "\x05GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    write("http1", "fold", "\x08GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n")


def seeds_page_token():
    # u8 version=1, u8 sort, u64be fingerprint, varint typos, varint field, u8 startsWith, varint weight, string id
    from google.protobuf.internal.encoder import _VarintBytes as varint
    def token(sort, fingerprint, typos, field, starts, weight, ident):
        raw = bytes([1, sort]) + struct.pack(">Q", fingerprint) + varint(typos) + varint(field) + bytes([starts]) \
            + varint(weight) + varint(len(ident)) + ident
        return base64.urlsafe_b64encode(raw).rstrip(b"=")
    write("page-token", "relevance", token(0, 0x1234, 0, 0, 1, 5, b"e1"))
    write("page-token", "weight", token(1, 2**64 - 1, 2, 1, 0, 2**63, "é".encode() * 3))
    write("page-token", "truncated", token(0, 7, 1, 0, 0, 1, b"abc")[:-3])


def seeds_http2():
    import h2.config
    import h2.connection
    config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
    def connection():
        c = h2.connection.H2Connection(config=config)
        c.initiate_connection()
        preface = c.data_to_send()
        return c, preface
    preface_length = len(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    c, preface = connection()
    c.send_headers(1, [(":method", "GET"), (":path", "/v1/suggest?q=py"), (":scheme", "http"), (":authority", "x")], end_stream=True)
    write("http2", "get", (preface + c.data_to_send())[preface_length:])
    c, preface = connection()
    c.send_headers(1, [(":method", "POST"), (":path", "/typeahead.v1.Typeahead/Suggest"), (":scheme", "http"), (":authority", "x"),
                       ("content-type", "application/grpc"), ("te", "trailers")])
    c.send_data(1, b"\x00\x00\x00\x00\x04\x0a\x02py", end_stream=True)
    c.send_headers(3, [(":method", "GET"), (":path", "/healthz"), (":scheme", "http"), (":authority", "x")], end_stream=True)
    c.reset_stream(3)
    c.ping(b"12345678")
    write("http2", "grpc", (preface + c.data_to_send())[preface_length:])


if __name__ == "__main__":
    seeds_protobuf()
    seeds_request_json()
    seeds_catalog_line()
    seeds_http1()
    seeds_page_token()
    seeds_http2()
    print("seeds written to", OUT)
