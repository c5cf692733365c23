#!/usr/bin/env python3
"""A TCP relay that adds latency: every chunk read from either side is written to the other side
`--delay-ms` later, in order. It stands in for `tc qdisc ... netem delay` on kernels without
sch_netem (this project's CI machines lack it): a replica behind the relay is as slow as one
behind a slow network link, to the coordinator that talks to it.

Usage: delay_relay.py --target HOST:PORT --delay-ms N [--listen HOST:PORT] [--port-file F]
Prints the bound port on standard output (first line) and serves until killed. SIGUSR1 toggles
the delay off and on (so a test can make a replica slow only for a while).
"""
import argparse
import asyncio
import signal
import sys
import time

state = {"delay": 0.0, "enabled": True}


async def pump(reader, writer):
    queue = asyncio.Queue()

    async def sender():
        while True:
            due, data = await queue.get()
            if data is None:
                break
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        try:
            writer.close()
        except Exception:
            pass

    task = asyncio.create_task(sender())
    try:
        while True:
            data = await reader.read(65536)
            delay = state["delay"] if state["enabled"] else 0.0
            if not data:
                await queue.put((time.monotonic() + delay, None))
                break
            await queue.put((time.monotonic() + delay, data))
    except Exception:
        await queue.put((0, None))
    await task


async def handle(client_reader, client_writer, target):
    host, port = target
    try:
        server_reader, server_writer = await asyncio.open_connection(host, port)
    except Exception:
        client_writer.close()
        return
    await asyncio.gather(pump(client_reader, server_writer), pump(server_reader, client_writer), return_exceptions=True)


async def main():
    # Started from a test's worker thread, the process inherits a mask that blocks SIGTERM.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--delay-ms", type=float, required=True)
    parser.add_argument("--listen", default="127.0.0.1:0")
    parser.add_argument("--port-file")
    args = parser.parse_args()
    state["delay"] = args.delay_ms / 1000.0
    thost, tport = args.target.rsplit(":", 1)
    lhost, lport = args.listen.rsplit(":", 1)
    server = await asyncio.start_server(lambda r, w: handle(r, w, (thost, int(tport))), lhost, int(lport))
    port = server.sockets[0].getsockname()[1]
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, lambda: state.update(enabled=not state["enabled"]))
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(f"{port}\n")
        import os
        os.replace(args.port_file + ".tmp", args.port_file)
    print(port, flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
