"""Throughput of the business clock against businesstime, the peer in the issue.

Calendar: Europe/London, Mon-Fri 09:00-17:00, England and Wales bank holidays, no pauses.
Pairs: uniformly random instants over 2026-2027 (seeded), each pair put in order.
Prints pairs per second for day60 (1,000,000 pairs, vectorised) and for businesstime (a
sample timed pair by pair), the ratio, and how far the two agree on the sample; then the scalar
API (``business_seconds``, one pair a call) against businesstime pair by pair on the same pairs,
both on the two-year sample and on short pairs (within a week, an incident's typical span), as a
ratio in one run with the load average beside it.
Run: python benchmarks/clock.py [--pairs N] [--sample N]
"""

import argparse
import datetime as dt
import os
import time
import tracemalloc

import numpy as np
from businesstime import BusinessTime

from day60.clock import BusinessCalendar

CAL = {
    "timezone": "Europe/London",
    "holidays": {"country": "GB", "subdivision": "ENG"},
    "hours": {d: ["09:00-17:00"] for d in ("mon", "tue", "wed", "thu", "fri")},
}


def random_pairs(n: int, seed: int = 60) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    lo = np.datetime64("2026-01-01T00:00:00", "s").astype(np.int64)
    hi = np.datetime64("2028-01-01T00:00:00", "s").astype(np.int64)
    a = rng.integers(lo, hi, n)
    b = rng.integers(lo, hi, n)
    s, e = np.minimum(a, b), np.maximum(a, b)
    return s.astype("datetime64[s]").astype("datetime64[us]"), e.astype("datetime64[s]").astype("datetime64[us]")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--sample", type=int, default=2_000)
    args = parser.parse_args()

    cal = BusinessCalendar.from_dict(CAL)
    starts, ends = random_pairs(args.pairs)

    t0 = time.perf_counter()
    ours = cal.business_seconds_many(starts, ends)  # cold: builds the two-year interval table
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    cal.business_seconds_many(starts, ends)
    warm = time.perf_counter() - t0
    tracemalloc.start()
    cal.business_seconds_many(starts, ends)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()

    import holidays

    uk = holidays.country_holidays("GB", subdiv="ENG", years=range(2025, 2029))
    peer = BusinessTime(business_hours=(dt.time(9), dt.time(17)), holidays=list(uk.keys()))
    tz = cal.tz
    n = min(args.sample, args.pairs)
    local = [
        (dt.datetime.fromtimestamp(int(s.astype("datetime64[s]").astype(np.int64)), tz).replace(tzinfo=None),
         dt.datetime.fromtimestamp(int(e.astype("datetime64[s]").astype(np.int64)), tz).replace(tzinfo=None))
        for s, e in zip(starts[:n], ends[:n], strict=True)
    ]
    t0 = time.perf_counter()
    theirs = [peer.businesstime_hours(a, b).total_seconds() for a, b in local]
    peer_time = time.perf_counter() - t0

    agree = int(np.sum(np.isclose(ours[:n], theirs, atol=1.0)))
    ours_rate = args.pairs / cold
    peer_rate = n / peer_time
    print(f"day60 business_seconds_many: {args.pairs:,} pairs in {cold:.3f} s cold "
          f"({ours_rate:,.0f} pairs/s), {warm:.3f} s warm ({args.pairs / warm:,.0f} pairs/s); "
          f"peak traced memory {peak / 2**20:.0f} MiB")
    print(f"businesstime businesstime_hours: {n:,} pairs in {peer_time:.3f} s ({peer_rate:,.0f} pairs/s)")
    print(f"throughput ratio (cold): {ours_rate / peer_rate:,.0f}x")
    print(f"agreement on the sample: {agree:,} of {n:,} pairs within 1 s")
    if agree < n:
        diffs = [(a, b, o, p) for (a, b), o, p in zip(local, ours[:n], theirs, strict=True) if abs(o - p) > 1]
        for a, b, o, p in diffs[:5]:
            print(f"  differs: {a} -> {b} (local): day60 {o / 3600:.4f} h, businesstime {p / 3600:.4f} h")
    scalar(cal, peer, local, "two-year sample")
    rng = np.random.default_rng(61)
    short = []
    for a, _ in local:
        b = a + dt.timedelta(seconds=int(rng.integers(0, 7 * 86_400)))
        short.append((a, b))
    scalar(cal, peer, short, "short pairs (under a week)")
    scalar(cal, peer, [(a, a + dt.timedelta(seconds=int(rng.integers(0, 10 * 3600)))) for a, _ in local],
           "pairs under ten hours apart")
    listed(cal, starts)


def scalar(cal: BusinessCalendar, peer: BusinessTime, local: list, label: str) -> None:
    """The scalar API, one pair a call, against businesstime on the same pairs, best of five."""
    tz = cal.tz
    aware = [(a.replace(tzinfo=tz), b.replace(tzinfo=tz)) for a, b in local]
    aware = [(a, b) if a <= b else (b, a) for a, b in aware]
    cal.business_seconds(*aware[0])
    ours = theirs = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for a, b in aware:
            cal.business_seconds(a, b)
        ours = min(ours, time.perf_counter() - t0)
        t0 = time.perf_counter()
        for a, b in local:
            peer.businesstime_hours(a, b)
        theirs = min(theirs, time.perf_counter() - t0)
    n = len(local)
    print(f"scalar business_seconds, {label}: {ours / n * 1e6:.2f} µs a pair; businesstime "
          f"{theirs / n * 1e6:.2f} µs a pair; ratio {ours / theirs:.2f}x (load average "
          f"{os.getloadavg()[0]:.2f})")


def listed(cal: BusinessCalendar, starts: np.ndarray) -> None:
    """Converting a list of aware Python datetimes (what a caller may hold) to instants."""
    from day60.clock import instants_us, to_utc_us

    values = [dt.datetime.fromtimestamp(int(s), cal.tz) for s in starts.astype("datetime64[s]").astype(np.int64)]
    t0 = time.perf_counter()
    instants_us(values, "starts")
    bulk = time.perf_counter() - t0
    t0 = time.perf_counter()
    np.fromiter((to_utc_us(v) for v in values), np.int64, len(values))
    each = time.perf_counter() - t0
    print(f"a list of {len(values):,} aware datetimes: {bulk:.3f} s a field at a time "
          f"({bulk / len(values) * 1e9:.0f} ns an instant), {each:.3f} s one at a time")


if __name__ == "__main__":
    main()
