"""day60 serve with many pages open: N event streams on a journal of L lines (SYNTHETIC data,
invented here), then one line posted at a time; reports how long each post takes to be answered
and how many streams heard of each new line within one second.

Before the views were shared, each stream filtered the whole journal again at every append: with
600 streams on 20,000 lines a post took 1.5 s on average to answer and a fifth of the streams
missed the one-second promise.

Run: PYTHONPATH=. python benchmarks/serve_streams.py [--streams N] [--lines L] [--posts P]
"""

import argparse
import asyncio
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


async def call(port: int, method: str, path: str, body=None, key=None) -> tuple[int, dict]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    payload = json.dumps(body).encode() if body is not None else b""
    auth = f"Authorization: Bearer {key}\r\n" if key else ""
    writer.write(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{auth}Content-Type: application/json\r\n"
                 f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode() + payload)
    raw = await reader.read()
    writer.close()
    head, _, text = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(text)


async def listen(port: int, key: str, heard: dict[int, list[float]]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {key}\r\n\r\n".encode())
    while line := await reader.readline():
        if line.startswith(b"data: "):
            heard.setdefault(int(line[6:]), []).append(time.perf_counter())


async def run(port: int, streams: int, posts: int) -> None:
    key = (await call(port, "POST", "/api/join", {"token": "bench-token-1", "name": "Watch", "role": "observer"}))[1]
    writer_key = (await call(port, "POST", "/api/join", {"token": "bench-token-1", "name": "Post",
                                                         "role": "observer"}))[1]["key"]
    heard: dict[int, list[float]] = {}
    tasks = [asyncio.create_task(listen(port, key["key"], heard)) for _ in range(streams)]
    await asyncio.sleep(3)
    answered, in_time = [], []
    for k in range(posts):
        t0 = time.perf_counter()
        status, answer = await call(port, "POST", "/api/events", {"kind": "drift.false-alert", "id": f"p{k}"},
                                    writer_key)
        answered.append(time.perf_counter() - t0)
        assert status == 201, answer
        await asyncio.sleep(1.2)
        seq = answer["event"]["seq"]
        in_time.append(sum(1 for t in heard.get(seq, []) if t - t0 <= 1.0))
    for t in tasks:
        t.cancel()
    print(f"post answered: median {statistics.median(answered) * 1000:.0f} ms, max {max(answered) * 1000:.0f} ms")
    print(f"streams that heard each line within 1 s: min {min(in_time)} of {streams}, "
          f"median {statistics.median(in_time)} of {streams}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", type=int, default=600)
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--posts", type=int, default=10)
    args = parser.parse_args()
    from day60 import journal as jr

    now = dt.datetime.now(dt.UTC)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ex.jsonl"
        subprocess.run([sys.executable, "-m", "day60", "new", str(path), "--partner", "A (SYNTHETIC)", "--supplier",
                        "B (SYNTHETIC)", "--deployment", "C", "--tier", "T3", "-c", "uk-office", "--window-start",
                        (now - dt.timedelta(days=1)).isoformat(), "--window-end",
                        (now + dt.timedelta(days=1)).isoformat(), "--runner", "R", "--synthetic"],
                       env=ENV, check=True, capture_output=True)
        with jr.batch(path) as b:
            for i in range(args.lines):
                b.add("drift.false-alert", f"b{i}", now.isoformat(), "bench (observer)", {})
        proc = subprocess.Popen([sys.executable, "-m", "day60", "serve", str(path), "--port", "0", "--token",
                                 "bench-token-1"], env=ENV, stdout=subprocess.PIPE, text=True)
        port = int(proc.stdout.readline().rsplit(":", 1)[1].strip("/\n"))
        time.sleep(2)
        try:
            print(f"{args.streams} streams, a journal of {args.lines} lines, {args.posts} posts one at a time")
            asyncio.run(run(port, args.streams, args.posts))
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
