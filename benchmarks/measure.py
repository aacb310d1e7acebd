"""Run one `day60` command in a child process and report its wall time and peak memory.

The peak is read from the child's own /proc/self/status (VmHWM) just before it exits:
getrusage on children would report the parent's memory, since a forked child inherits its
high-water mark and the parent may hold a whole generated journal.
"""

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
