#!/usr/bin/env python3
"""A hostile user's battery against a tabiya database: crafted requests, load with scans, kills.

    tools/check/battery.py --db DB [--tabiya PATH] [--memory SIZE] [--address-space BYTES]
                            [--clients 20] [--seconds 20] [--pgn FILE --kills 4]

Three parts, each printed as PASS or FAIL lines, then a summary; the exit status is 1 when any
check failed. With --address-space, every tabiya command runs under that address-space limit
(as `prlimit --as` sets one). Python's standard library only; the database is opened read-only except by the
kill part, which works in a directory of its own.

1. Crafted requests: broken FENs, signed and zero numbers, empty moves, oversized patterns and
   parameters, NULs and unknown values, against every endpoint. Each must answer 400 (with a
   message), 404 or 200 at once, never 500 or a dropped connection, even while the server's
   scan queue is full.
2. Load: CLIENTS threads look positions up for SECONDS while three threads ask scans (patterns,
   the database report, the book). Every answer is 200, or 503 with Retry-After; the server is
   alive and healthy after; its resident memory before, at its peak and after is printed.
3. Kills (with --pgn): the file is ingested once whole, then into a new database killed with
   SIGKILL at KILLS points of that run's duration, each followed by a new run; the last run
   completes. The games stored equal the whole run's, `tabiya verify` passes, and every killed
   run is recorded as interrupted.
"""

import argparse
import http.client
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

RESULTS = []

# The address-space limit of every tabiya command (None: none).
ADDRESS_SPACE = None


def limited():
    """Sets the address-space limit in a child, before it runs tabiya."""
    if ADDRESS_SPACE:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def check(name, ok, detail=""):
    RESULTS.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
    return ok


def get(addr, path, timeout=120):
    """(status, headers, body, seconds) of GET path, or (None, {}, error text, seconds)."""
    host, port = addr.rsplit(":", 1)
    started = time.monotonic()
    try:
        conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        conn.close()
        return response.status, dict(response.getheaders()), body, time.monotonic() - started
    except (OSError, http.client.HTTPException) as err:
        return None, {}, str(err).encode(), time.monotonic() - started


def rss_mib(pid):
    """(VmRSS, VmHWM) of a process in MiB, from /proc."""
    fields = {}
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    fields[key] = int(value.split()[0]) // 1024
    except OSError:
        pass
    return fields.get("VmRSS"), fields.get("VmHWM")


class Server:
    """`tabiya serve` on a free port of 127.0.0.1."""

    def __init__(self, tabiya, db, memory, extra=()):
        args = [tabiya, "serve", "--db", db, "--bind", "127.0.0.1:0", *extra]
        if memory:
            args += ["--memory", memory]
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                        preexec_fn=limited)
        line = self.process.stdout.readline().strip()
        prefix = "listening on http://"
        if not line.startswith(prefix):
            self.process.kill()
            raise SystemExit(f"tabiya serve did not start: {line!r}")
        self.addr = line[len(prefix):]

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def q(**params):
    return urllib.parse.urlencode(params)


CRAFTED = [
    # FENs: a board alone, junk after, repeated castling, NULs, signed counters, huge text.
    "/masters?" + q(fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"),
    "/masters?" + q(fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 junk"),
    "/masters?" + q(fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqKQ - 0 1"),
    "/masters?" + q(fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\x00"),
    "/masters?" + q(fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - +0 1"),
    "/masters?" + q(fen="8/8/8/8/8/8/8/8 w - - 0 1"),
    "/masters?" + q(fen="K" * 5000),
    "/lichess?" + q(fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1"),
    # Moves: empty, illegal, malformed, too many.
    "/masters?" + q(play="e2e4,,e7e5"),
    "/masters?" + q(play="e2e4,"),
    "/masters?" + q(play="e2e5"),
    "/masters?" + q(play="zz99"),
    "/masters?" + q(play=",".join(["g1f3", "g8f6", "f3g1", "f6g8"] * 3000)),
    # Numbers: signs, zero pages, huge, fractions.
    "/masters?" + q(since="+5"),
    "/masters?" + q(since="2020-13"),
    "/masters?" + q(until="99999"),
    "/lichess?" + q(ratings="-100"),
    "/lichess?" + q(ratings="2500,abc"),
    "/lichess?" + q(speeds="warp"),
    "/masters?" + q(moves="+5"),
    "/masters?" + q(moves="18446744073709551616"),
    "/masters?" + q(topGames="1.5"),
    "/games?" + q(page="0"),
    "/games?" + q(page="-1"),
    "/games?" + q(perPage="+20"),
    "/games?" + q(sort="sideways"),
    "/games?" + q(pattern="mate", fen="8/8/8/8/8/8/8/8 w - - 0 1"),
    "/games?" + q(minElo="+2500"),
    "/games?" + q(dateFrom="2020.13.45"),
    # Scans' parameters: refused before any wait.
    "/pattern?" + q(q="x" * 2001),
    "/pattern?" + q(q="(((((((((("),
    "/pattern?" + q(q="mate", limit="+5"),
    "/material?" + q(material="KQQQQQQQQQQvK"),
    "/material?" + q(material="nonsense"),
    "/book.bin?" + q(minGames="0"),
    "/book.bin?" + q(maxPly="-3"),
    "/report/database?" + q(format="pdf"),
    "/report/opening?" + q(play="e2e4,,"),
    "/report/player?" + q(player=""),
    # Games and players.
    "/game/0",
    "/game/99999999999999999999",
    "/game/abc",
    "/masters/pgn/-1",
    "/players?" + q(q="\x00"),
    "/player?" + q(player="", color="purple"),
    "/player?" + q(player="x", color="white", modes="nonsense"),
    "/move?" + q(play="e2e4", uci="e7e9"),
    # Paths that are not endpoints.
    "/%00",
    "/" + "a" * 8000,
]


def crafted(tabiya, db, memory):
    server = Server(tabiya, db, memory, extra=["--max-scans", "1", "--scan-queue", "1"])
    try:
        bad = []
        slow = []
        for path in CRAFTED:
            status, _, body, seconds = get(server.addr, path)
            if status not in (200, 400, 404, 414, 431) or (status == 400 and not body.strip()):
                bad.append(f"{path[:80]!r} -> {status} {body[:120]!r}")
            if status == 400 and seconds > 1.0:
                slow.append(f"{path[:60]!r} {seconds:.1f}s")
        check("crafted requests answer 200, 400 with a reason, or 404", not bad, "; ".join(bad[:5]))
        check("refusals come at once", not slow, "; ".join(slow[:5]))
        # The same scans' refusals while the one scan place and the one queue place are taken.
        holders = [threading.Thread(target=get, args=(server.addr, "/report/database?format=json")) for _ in range(2)]
        for holder in holders:
            holder.start()
        time.sleep(0.5)
        waits = []
        for path in [p for p in CRAFTED if p.startswith(("/pattern", "/book.bin", "/report/database"))]:
            status, _, _, seconds = get(server.addr, path)
            if status != 400 or seconds > 1.0:
                waits.append(f"{path[:60]!r} -> {status} after {seconds:.1f}s")
        check("bad scans are refused before they wait for a place", not waits, "; ".join(waits[:5]))
        for holder in holders:
            holder.join()
        check("the server is alive after the crafted requests", server.alive())
    finally:
        server.stop()


OPENINGS = [
    [],
    ["e2e4"],
    ["e2e4", "e7e5", "g1f3", "b8c6"],
    ["d2d4", "g8f6", "c2c4", "e7e6"],
    ["e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3", "a7a6"],
    ["c2c4", "e7e5"],
]
SCANS = [
    "/pattern?" + q(q="mate", limit=5),
    "/pattern?" + q(q="check", limit=5),
    "/report/database?format=json",
    "/book.bin?" + q(minGames=50, maxPly=12),
]


def load(tabiya, db, memory, clients, seconds):
    server = Server(tabiya, db, memory)
    pid = server.process.pid
    before, _ = rss_mib(pid)
    stop = time.monotonic() + seconds
    counts = {}
    failures = []
    lock = threading.Lock()

    def note(status, headers, body, path):
        with lock:
            counts[status] = counts.get(status, 0) + 1
            ok = status == 200 or (status == 503 and "retry-after" in {k.lower() for k in headers})
            if not ok and len(failures) < 10:
                failures.append(f"{path[:60]!r} -> {status} {body[:100]!r}")

    def lookups(seed):
        rng = random.Random(seed)
        while time.monotonic() < stop:
            line = rng.choice(OPENINGS)
            path = rng.choice(["/masters?", "/lichess?"]) + q(play=",".join(line[: rng.randint(0, len(line))]))
            if rng.random() < 0.3:
                path += "&" + q(since=str(rng.randint(1990, 2020)), ratings="2200,2500")
            status, headers, body, _ = get(server.addr, path, timeout=60)
            note(status, headers, body, path)

    def scans(seed):
        rng = random.Random(seed)
        while time.monotonic() < stop:
            path = rng.choice(SCANS)
            status, headers, body, _ = get(server.addr, path, timeout=180)
            note(status, headers, body, path)

    threads = [threading.Thread(target=lookups, args=(n,)) for n in range(clients)]
    threads += [threading.Thread(target=scans, args=(1000 + n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    peak = 0
    while any(thread.is_alive() for thread in threads):
        rss, _ = rss_mib(pid)
        peak = max(peak, rss or 0)
        time.sleep(0.2)
    after, hwm = rss_mib(pid)
    status, _, _, _ = get(server.addr, "/health")
    answered = sum(counts.values())
    check(f"{answered} answers under load are 200 or 503 with Retry-After", not failures, "; ".join(failures[:5]))
    print(f"  answers by status: {dict(sorted((str(k), v) for k, v in counts.items()))}")
    check("the server is alive and healthy after the load", server.alive() and status == 200, f"/health {status}")
    print(f"  server resident memory: before {before} MiB, peak {max(peak, hwm or 0)} MiB, after {after} MiB")
    server.stop()


def tail(done, returncode):
    """The end of a failed command's output (nothing for one that succeeded)."""
    if returncode == 0:
        return ""
    out = done.stdout.decode() if isinstance(done.stdout, bytes) else (done.stdout or "")
    err = done.stderr.decode() if isinstance(done.stderr, bytes) else (done.stderr or "")
    return f"status {returncode}: {(out + err)[-300:]}"


def stats(tabiya, db):
    out = subprocess.run([tabiya, "stats", "--json", "--db", db], capture_output=True, text=True, preexec_fn=limited)
    return json.loads(out.stdout) if out.returncode == 0 else None


def kills(tabiya, pgn, count, memory):
    work = tempfile.mkdtemp(prefix="tabiya-battery-")
    try:
        extra = ["--memory", memory] if memory else []
        whole = os.path.join(work, "whole")
        started = time.monotonic()
        done = subprocess.run([tabiya, "ingest", *extra, "--db", whole, pgn], capture_output=True, preexec_fn=limited)
        duration = time.monotonic() - started
        if not check("the whole ingest completes", done.returncode == 0, tail(done, done.returncode)):
            return
        expected = stats(tabiya, whole)["games"]
        killed = os.path.join(work, "killed")
        points = [duration * (n + 0.5) / count for n in range(count)]
        for at in points:
            run = subprocess.Popen([tabiya, "ingest", *extra, "--db", killed, pgn],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=limited)
            time.sleep(at)
            run.kill()
            run.wait()
        done = subprocess.run([tabiya, "ingest", *extra, "--db", killed, pgn], capture_output=True,
                              preexec_fn=limited)
        check("the run after the kills completes", done.returncode == 0, tail(done, done.returncode))
        after = stats(tabiya, killed)
        games = after["games"] if after else None
        check("the killed database holds the whole run's games", games == expected, f"{games} against {expected}")
        verify = subprocess.run([tabiya, "verify", *extra, "--db", killed], capture_output=True, text=True,
                                preexec_fn=limited)
        check("tabiya verify passes after the kills", verify.returncode == 0, tail(verify, verify.returncode))
        runs = after["runs"] if after else []
        statuses = [run["status"] for run in runs]
        # A kill after its run ended (a short file) leaves a completed run: not every point
        # lands inside a run.
        check("every run is recorded, the killed ones as interrupted",
              len(runs) == count + 1 and statuses[-1] == "completed"
              and all(s in ("interrupted", "completed") for s in statuses[:-1]),
              f"{statuses}")
        print(f"  whole run {duration:.1f} s; kills at {', '.join(f'{p:.1f}' for p in points)} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", required=True, help="the database to serve (read only)")
    parser.add_argument("--tabiya", default=shutil.which("tabiya") or "target/release/tabiya")
    parser.add_argument("--memory", help="--memory SIZE for every tabiya command")
    parser.add_argument("--address-space", type=int, help="bytes of address space every tabiya command may take")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--pgn", help="a PGN file to ingest for the kill part (none: no kills)")
    parser.add_argument("--kills", type=int, default=4)
    args = parser.parse_args()
    global ADDRESS_SPACE
    ADDRESS_SPACE = args.address_space
    if not os.path.isdir(args.db):
        raise SystemExit(f"{args.db}: no database there")
    print(f"crafted requests ({len(CRAFTED)})", flush=True)
    crafted(args.tabiya, args.db, args.memory)
    print(f"load: {args.clients} clients for {args.seconds:g} s, three scanning", flush=True)
    load(args.tabiya, args.db, args.memory, args.clients, args.seconds)
    if args.pgn:
        print(f"kills: {args.kills} during an ingest of {args.pgn}", flush=True)
        kills(args.tabiya, args.pgn, args.kills, args.memory)
    failed = RESULTS.count(False)
    print(f"{len(RESULTS) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
