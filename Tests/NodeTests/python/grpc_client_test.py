#!/usr/bin/env python3
"""A real gRPC client (grpcio) against a running `typeahead node`.

Usage: grpc_client_test.py --addr HOST:PORT --token ADMIN_TOKEN --proto-dir DIR

Generates Python stubs from the .proto files with grpc_tools.protoc into a temporary directory,
then calls every method the node serves. Prints one line per check ("ok <name>" or
"FAIL <name>: <why>") and exits non-zero if any check failed.
"""
import argparse
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import grpc
from report import check, failures, finish



def expect_code(name, call, code):
    """Runs call(); checks that it raises grpc.RpcError with the given status code."""
    try:
        result = call()
    except grpc.RpcError as error:
        check(name, error.code() == code, f"expected {code}, got {error.code()} ({error.details()})")
        return error
    check(name, False, f"expected {code}, got a response: {str(result)[:200]}")
    return None


def generate_stubs(proto_dir):
    out = tempfile.mkdtemp(prefix="typeahead-stubs-")
    # Imported from for the whole run, then removed: a run leaves nothing in the temp directory.
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    files = ["typeahead/v1/typeahead.proto", "typeahead/v1/shard.proto"]
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", proto_dir, f"--python_out={out}",
                    f"--grpc_python_out={out}"] + files, check=True)
    # health.proto's package path (grpc/...) would shadow the grpc runtime: generate it as a top-level module.
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", os.path.join(proto_dir, "grpc/health/v1"),
                    f"--python_out={out}", f"--grpc_python_out={out}", "health.proto"], check=True)
    sys.path.insert(0, out)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--addr", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--proto-dir", required=True)
    parser.add_argument("--max-message-bytes", type=int, default=4 << 20)
    args = parser.parse_args()

    generate_stubs(args.proto_dir)
    from typeahead.v1 import typeahead_pb2 as ta, typeahead_pb2_grpc as ta_grpc
    from typeahead.v1 import shard_pb2 as sh, shard_pb2_grpc as sh_grpc
    import health_pb2 as hp, health_pb2_grpc as hp_grpc

    limit = args.max_message_bytes
    options = [("grpc.max_send_message_length", 64 << 20), ("grpc.max_receive_message_length", 64 << 20)]
    channel = grpc.insecure_channel(args.addr, options=options)
    grpc.channel_ready_future(channel).result(timeout=10)
    client = ta_grpc.TypeaheadStub(channel)
    shard = sh_grpc.ShardStub(channel)
    health = hp_grpc.HealthStub(channel)
    admin = (("authorization", f"Bearer {args.token}"),)
    wrong = (("authorization", "Bearer not-the-right-token-at-all"),)

    # Suggest
    reply = client.Suggest(ta.SuggestRequest(text="red sh", session="s-42", revision=7), timeout=10)
    check("suggest entries", len(reply.entries) > 0, str(reply))
    check("suggest entries match 'red sh'",
          all("red" in e.title.lower() for e in reply.entries), [e.title for e in reply.entries])
    check("suggest completions", len(reply.completions) > 0, str(reply.completions))
    check("suggest categories", len(reply.categories) > 0 and all(c.token.kind == "category" for c in reply.categories),
          str(reply.categories))
    check("suggest session/revision echoed", reply.session == "s-42" and reply.revision == 7,
          f"{reply.session!r} {reply.revision}")
    check("suggest shard status", reply.shards.total == 1 and reply.shards.succeeded == 1, str(reply.shards))
    limited = client.Suggest(ta.SuggestRequest(text="red sh", limits=ta.SuggestLimits(entries=1)), timeout=10)
    check("suggest limits.entries=1", len(limited.entries) == 1, str(len(limited.entries)))

    # Search with paging to the end
    first = client.Search(ta.SearchRequest(text="red", page_size=5), timeout=10)
    check("search first page", first.total_hits > 5 and len(first.hits) == 5 and first.next_page_token != "",
          f"total={first.total_hits} hits={len(first.hits)} token={first.next_page_token!r}")
    seen = [h.id for h in first.hits]
    token, pages = first.next_page_token, 1
    consistent = True
    while token and pages < 1000:
        page = client.Search(ta.SearchRequest(text="red", page_size=5, page_token=token), timeout=10)
        consistent = consistent and page.total_hits == first.total_hits
        seen += [h.id for h in page.hits]
        token, pages = page.next_page_token, pages + 1
    check("search paging reaches the end", token == "", f"pages={pages}")
    check("search totalHits consistent across pages", consistent)
    check("search pages cover totalHits without duplicates",
          len(seen) == first.total_hits and len(set(seen)) == len(seen), f"seen={len(seen)} unique={len(set(seen))} total={first.total_hits}")
    by_weight = client.Search(ta.SearchRequest(text="red", page_size=20, sort=ta.SearchRequest.SORT_WEIGHT), timeout=10)
    weights = [h.weight for h in by_weight.hits]
    check("search sort=weight descending", weights == sorted(weights, reverse=True) and weights, str(weights))

    # Shard reads
    ss = shard.ShardSuggest(sh.ShardSuggestRequest(request=ta.SuggestRequest(text="red sh")), timeout=10)
    check("shardSuggest rank keys", len(ss.entries) > 0 and all(e.HasField("rank") and e.rank.id == e.hit.id for e in ss.entries)
          and ss.generation > 0, str(ss)[:300])
    check("shardSuggest completions with best rank", all(c.HasField("best") for c in ss.completions), str(ss.completions)[:300])
    sr = shard.ShardSearch(sh.ShardSearchRequest(request=ta.SearchRequest(text="red", page_size=10)), timeout=10)
    check("shardSearch rank keys", len(sr.hits) > 0 and all(h.HasField("rank") and h.rank.id == h.hit.id for h in sr.hits)
          and sr.total_hits == first.total_hits and sr.generation > 0, str(sr)[:300])

    # Stats
    stats = shard.Stats(sh.StatsRequest(), timeout=10)
    check("stats", stats.entries == 1600 and stats.current_generation > 0 and stats.shard != ""
          and any(g.state == sh.GenerationInfo.STATE_CURRENT for g in stats.generations), str(stats))

    # Health
    for service in ["", "typeahead.v1.Typeahead"]:
        status = health.Check(hp.HealthCheckRequest(service=service), timeout=10).status
        check(f"health check {service!r} SERVING", status == hp.HealthCheckResponse.SERVING, str(status))
    expect_code("health check unknown service NOT_FOUND",
                lambda: health.Check(hp.HealthCheckRequest(service="no.such.Service"), timeout=10), grpc.StatusCode.NOT_FOUND)
    watch = health.Watch(hp.HealthCheckRequest(service=""), timeout=10)
    first_status = next(watch).status
    check("health watch first message SERVING", first_status == hp.HealthCheckResponse.SERVING, str(first_status))
    watch.cancel()

    # Upsert / Delete
    entry = sh.Entry(id="nodetest-1", title="Zyzzyva Quokka Lamp", categories=["Lighting"], weight=999)
    expect_code("upsert without token UNAUTHENTICATED",
                lambda: shard.Upsert(sh.UpsertRequest(entries=[entry]), timeout=10), grpc.StatusCode.UNAUTHENTICATED)
    expect_code("upsert with wrong token UNAUTHENTICATED",
                lambda: shard.Upsert(sh.UpsertRequest(entries=[entry]), metadata=wrong, timeout=10), grpc.StatusCode.UNAUTHENTICATED)
    expect_code("delete without token UNAUTHENTICATED",
                lambda: shard.Delete(sh.DeleteRequest(ids=["nodetest-1"]), timeout=10), grpc.StatusCode.UNAUTHENTICATED)
    up = shard.Upsert(sh.UpsertRequest(entries=[entry]), metadata=admin, timeout=10)
    check("upsert with token", up.summary.inserted == 1, str(up))
    seen_now = client.Suggest(ta.SuggestRequest(text="zyzzyva qu"), timeout=10)
    check("upsert visible to next suggest", [e.id for e in seen_now.entries] == ["nodetest-1"], str(seen_now.entries))
    deleted = shard.Delete(sh.DeleteRequest(ids=["nodetest-1", "nodetest-missing"]), metadata=admin, timeout=10)
    check("delete with token", deleted.summary.deleted == 1 and deleted.summary.missing == 1, str(deleted))
    gone = client.Suggest(ta.SuggestRequest(text="zyzzyva qu"), timeout=10)
    check("delete visible to next suggest", len(gone.entries) == 0, str(gone.entries))

    # Generations: build (client stream of batches), activate, rollback, drop
    before = shard.Stats(sh.StatsRequest(), timeout=10)
    old_generation = before.current_generation
    batches = [sh.BuildGenerationRequest(parameters=sh.IndexParameters() if i == 0 else None,
                                         entries=[sh.Entry(id=f"gen-{i}-{j}", title=f"Generation Widget {i} {j}", weight=10 + j)
                                                  for j in range(50)]) for i in range(4)]
    expect_code("buildGeneration without token UNAUTHENTICATED",
                lambda: shard.BuildGeneration(iter(batches), timeout=30), grpc.StatusCode.UNAUTHENTICATED)
    built = shard.BuildGeneration(iter(batches), metadata=admin, timeout=60)
    new_generation = built.generation.number
    check("buildGeneration staged", built.generation.state == sh.GenerationInfo.STATE_STAGED and built.generation.entries == 200
          and new_generation != old_generation, str(built))
    activated = shard.ActivateGeneration(sh.ActivateGenerationRequest(generation=new_generation), metadata=admin, timeout=30)
    states = {g.number: g.state for g in activated.generations}
    check("activateGeneration", states.get(new_generation) == sh.GenerationInfo.STATE_CURRENT
          and states.get(old_generation) == sh.GenerationInfo.STATE_PREVIOUS, str(activated))
    widgets = client.Suggest(ta.SuggestRequest(text="generation widg"), timeout=10)
    check("new generation serves", len(widgets.entries) > 0 and shard.Stats(sh.StatsRequest(), timeout=10).entries == 200,
          str(widgets.entries)[:200])
    rolled = shard.Rollback(sh.RollbackRequest(), metadata=admin, timeout=30)
    states = {g.number: g.state for g in rolled.generations}
    check("rollback", states.get(old_generation) == sh.GenerationInfo.STATE_CURRENT, str(rolled))
    check("rolled-back generation serves", shard.Stats(sh.StatsRequest(), timeout=10).entries == 1600)
    dropped = shard.DropGeneration(sh.DropGenerationRequest(generation=new_generation), metadata=admin, timeout=30)
    check("dropGeneration", new_generation not in {g.number for g in dropped.generations}, str(dropped))
    expect_code("dropGeneration of the current generation refused",
                lambda: shard.DropGeneration(sh.DropGenerationRequest(generation=old_generation), metadata=admin, timeout=30),
                grpc.StatusCode.FAILED_PRECONDITION)
    expect_code("activateGeneration of an unknown generation NOT_FOUND",
                lambda: shard.ActivateGeneration(sh.ActivateGenerationRequest(generation=987654), metadata=admin, timeout=30),
                grpc.StatusCode.NOT_FOUND)

    # Errors
    expect_code("suggest limits 1000 INVALID_ARGUMENT",
                lambda: client.Suggest(ta.SuggestRequest(text="red", limits=ta.SuggestLimits(entries=1000)), timeout=10),
                grpc.StatusCode.INVALID_ARGUMENT)
    expect_code("search garbage pageToken INVALID_ARGUMENT",
                lambda: client.Search(ta.SearchRequest(text="red", page_token="!!garbage!!"), timeout=10),
                grpc.StatusCode.INVALID_ARGUMENT)
    # grpcio rounds a 1 µs timeout up to "grpc-timeout: 1m" (its clock has millisecond resolution), and
    # a search for "red" answers well within 1 ms, so OK would be a correct reply there. A broad
    # search (every word starting with "s", 100 per page) takes several milliseconds, so the call
    # must end DEADLINE_EXCEEDED, from the node or from the client's own timer. (malformed_test.py
    # checks the node's own deadline deterministically with "grpc-timeout: 1n".)
    expect_code("search timeout=1e-6 DEADLINE_EXCEEDED",
                lambda: client.Search(ta.SearchRequest(text="s", page_size=100), timeout=1e-6),
                grpc.StatusCode.DEADLINE_EXCEEDED)
    # At most 4: the node runs 2 x cores searches at once and refuses more (RESOURCE_EXHAUSTED).
    futures = [client.Search.future(ta.SearchRequest(text="s", page_size=100), timeout=10) for _ in range(4)]
    for future in futures:
        future.cancel()
    cancelled = sum(1 for f in futures if f.cancelled())
    check("search future.cancel()", all(f.done() for f in futures), f"cancelled={cancelled}")
    time.sleep(0.2)  # cancelled searches stop at their next check; let them leave the read pool
    after = client.Search(ta.SearchRequest(text="red", page_size=5), timeout=10)
    check("node serves after cancellations", after.total_hits == first.total_hits, str(after.total_hits))
    bogus = channel.unary_unary("/typeahead.v1.Typeahead/NoSuchMethod",
                                request_serializer=lambda m: m.SerializeToString(), response_deserializer=lambda b: b)
    expect_code("unknown method UNIMPLEMENTED", lambda: bogus(ta.SuggestRequest(text="x"), timeout=10),
                grpc.StatusCode.UNIMPLEMENTED)
    bogus_service = channel.unary_unary("/no.such.Service/Call",
                                        request_serializer=lambda m: m.SerializeToString(), response_deserializer=lambda b: b)
    expect_code("unknown service UNIMPLEMENTED", lambda: bogus_service(ta.SuggestRequest(text="x"), timeout=10),
                grpc.StatusCode.UNIMPLEMENTED)
    expect_code("gzip-compressed request UNIMPLEMENTED",
                lambda: client.Suggest(ta.SuggestRequest(text="red sh"), compression=grpc.Compression.Gzip, timeout=10),
                grpc.StatusCode.UNIMPLEMENTED)

    # Message size: just under the limit succeeds; over it is RESOURCE_EXHAUSTED.
    def big_upsert(target_bytes, prefix):
        description = "x" * 12000
        entries = []
        size = 0
        i = 0
        while True:
            e = sh.Entry(id=f"{prefix}-{i}", title=f"Bulk Item {prefix} {i}", weight=1, description=description)
            entry_size = len(sh.UpsertRequest(entries=[e]).SerializeToString())
            if size + entry_size > target_bytes:
                break
            entries.append(e)
            size += entry_size
            i += 1
        request = sh.UpsertRequest(entries=entries)
        # Pad the last description so the message lands close to the target.
        slack = target_bytes - len(request.SerializeToString())
        if slack > 0 and entries:
            entries[-1].description = "x" * min(16000, 12000 + slack)
        return sh.UpsertRequest(entries=entries)
    under = big_upsert(limit - 16, "under")
    size_under = len(under.SerializeToString())
    check("upsert just under the limit is built", limit - 20000 < size_under <= limit, f"{size_under} vs {limit}")
    reply = shard.Upsert(under, metadata=admin, timeout=60)
    check(f"upsert of {size_under} bytes (limit {limit}) OK",
          reply.summary.inserted + reply.summary.replaced == len(under.entries), str(reply.summary))
    over = big_upsert(limit + (1 << 20), "over")
    expect_code(f"upsert of {len(over.SerializeToString())} bytes RESOURCE_EXHAUSTED",
                lambda: shard.Upsert(over, metadata=admin, timeout=60), grpc.StatusCode.RESOURCE_EXHAUSTED)
    final = client.Suggest(ta.SuggestRequest(text="red sh"), timeout=10)
    check("node serves at the end", len(final.entries) > 0)
    channel.close()


if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
        print("FAIL unexpected exception", flush=True)
        sys.exit(2)
    sys.exit(finish())
