"""Run one `day60` command in a child process and report its wall time and peak memory.

The peak is read from the child's own /proc/self/status (VmHWM) just before it exits:
getrusage on children would report the parent's memory, since a forked child inherits its
high-water mark and the parent may hold a whole generated journal.
"""

import os
import resource
import subprocess
import sys
import time

CHILD = """
import sys
from day60.cli import main
sys.argv = ["day60", *sys.argv[1:]]
code = 0
try:
    main()
except SystemExit as done:
    code = done.code or 0
finally:
    hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]
    print(code, hwm, file=sys.stderr)
"""


def day60(*args: str) -> tuple[float, float]:
    """Seconds of wall time and peak MiB of ``day60 ARGS...``; exits with its error if it fails."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    last = (done.stderr.strip().splitlines() or ["?"])[-1].split()
    if len(last) != 2 or last[0] != "0":
        sys.exit(done.stderr)
    return seconds, int(last[1]) / 1024


def child(code: str, *args: str, stdout: str | None = None) -> dict[str, float]:
    """Run ``python -c CODE ARGS...`` (CODE prints its exit code and VmHWM on stderr last, as CHILD
    does) with its output sent to ``stdout`` (a path) or discarded: wall seconds, CPU seconds (user
    and system, its threads included, from getrusage on children, which counts CPU correctly even
    where it does not count peak memory), peak MiB, bytes written and the load average before it."""
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(stdout or os.devnull, "wb") as out:
        done = subprocess.run([sys.executable, "-c", code, *args], stdout=out, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    last = (done.stderr.strip().splitlines() or ["?"])[-1].split()
    if len(last) != 2 or last[0] != "0":
        sys.exit(done.stderr)
    return {"wall": seconds, "cpu": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
            "peak": int(last[1]) / 1024, "bytes": os.path.getsize(stdout) if stdout else 0, "load": load}
