#!/usr/bin/env python3
"""Checks the interval multiplexing outputs of one boot (tests/e2e/pmu.sh):
the `vertigo timeline` CSV, Chrome Trace Event JSON and PNG, the `vertigo
correlate` CSV and heat map, against the run's exact totals (the
software model counts every event all along) and the phases the guest
workload printed (tests/guest/phases.c). Prints "PASS: name" or "FAIL:
name (why)" per check, as tests/e2e/lib.sh does.

usage: mux_check.py --run NAME --csv F --json F --png F --heat F --corr F
                    --totals "name=count ..." --phases SERIAL --interval N
                    --skid K --hv-line LINE --decode DECODE

DECODE: `vertigo decode` of the log; the session runs with
pmu.interval.exact=on, so each row is followed by the exact counts of
its interval (docs/log-format.md, swcounters).
"""
import argparse
import csv
import json
import os
import struct
import sys

from e2e_report import check, failed

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from bench_mux_accuracy import references  # noqa: E402  (the decode's exact references)


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        return header, [row for row in reader]


def csv_valid(header, rows):
    """Same width everywhere, numbers where numbers go, known marks."""
    for n, row in enumerate(rows):
        if len(row) != len(header):
            return "row %d has %d fields, the header %d" % (n, len(row), len(header))
        for name, value in zip(header, row):
            if name.endswith(":how"):
                if value not in ("measured", "extrapolated", "unmeasured"):
                    return "row %d: %s = %r" % (n, name, value)
            elif not value.isdigit():
                return "row %d: %s = %r is not a count" % (n, name, value)
    return ""


def event_names(header):
    """The value columns: after the six fixed ones, those without a suffix."""
    return [h for h in header[6:] if not h.endswith((":raw", ":running", ":how"))]


def phase_windows(serial):
    """{name: (tsc_start, tsc_end)} from "phases: NAME tsc A B" lines."""
    out = {}
    with open(serial, errors="replace") as f:
        for line in f:
            parts = line.replace("\r", "").split()
            if len(parts) == 5 and parts[0] == "phases:" and parts[2] == "tsc":
                out[parts[1]] = (int(parts[3]), int(parts[4]))
    return out


def rows_in(dicts, window):
    a, b = window
    return [r for r in dicts if int(r["tsc"]) >= a and int(r["tsc"]) + int(r["tsc_span"]) <= b]


def mean(values):
    return sum(values) / len(values) if values else 0.0


def check_numbering(run, dicts, interval, skid, hv_line):
    numbers = [int(r["interval"]) for r in dicts]
    check(run, numbers == list(range(len(numbers))) and numbers,
          "every interval present, numbered without gaps (%d rows)" % len(numbers),
          "numbers %s..." % numbers[:5])
    off = [int(r["enabled"]) for r in dicts[:-1] if abs(int(r["enabled"]) - interval) > skid]
    check(run, not off and dicts, "each row but the run's last has %d instructions (+- %d)" %
          (interval, skid), "%d rows off, e.g. %s" % (len(off), off[:3]))
    check(run, "skid at most" in hv_line and int(hv_line.split("skid at most ")[1].split()[0]) <= skid,
          "Vertigo's turns ended within the skid: %s" % hv_line.strip(), hv_line)


# Every event's extrapolated total within 5 % of the exact one (seen: at
# most 0.9 % for the events that count no Vertigo instructions). An event
# that counts Vertigo's (:h) is held to it only outside the stepped rows
# below; in them its extrapolation is checked against what any turn could
# have seen (check_row_bounds).
TOTAL_BOUND = 0.05

# A stepped row: the interval's exact instructions:ukh more than STEPPED
# times its instructions, i.e. Vertigo's part outweighs the guest's. The
# workload's exact checks at user step 1 make each guest instruction a VM
# exit of about a thousand ticks, so a window of a hundred thousand or so
# guest instructions carries a hundred million or more of Vertigo's. A
# turn is 40K guest instructions (pmu.sh), so such a window spans only a
# few turns: how much each set holds depends on where the turns' edges
# fall, and its :h events' value there is a sample, not an estimate.
# Turns counted in guest instructions are the session's design
# (docs/pmu.md "Interval multiplexing"); one CI run had instructions:ukh's
# total 7.3 % off, the rows not stepped 0.1 % in another.
STEPPED = 2


def stepped_rows(refs, names):
    if "instructions:ukh" not in names or "instructions" not in names:
        return set()
    ukh, ins = names.index("instructions:ukh"), names.index("instructions")
    return {k for k, ref in refs.items() if ref[ukh] > STEPPED * max(ref[ins], 1)}


def hv_event(name):
    return ":" in name and "h" in name.split(":", 1)[1]


def check_totals(run, dicts, totals, refs, names):
    """Each event's rows summed against their exact references; :h events
    leave out the stepped rows (and print their total over all rows)."""
    stepped = stepped_rows(refs, names)
    keyed = row_keys(dicts)
    print("    stepped rows (Vertigo's part over %dx the guest's): %d of %d" %
          (STEPPED, len(stepped), len(dicts)))
    worst = 0.0
    for e, name in enumerate(names):
        keys = [k for k in keyed if not hv_event(name) or k not in stepped]
        got = sum(int(keyed[k][name]) for k in keys)
        exact = sum(refs[k][e] for k in keys)     # all rows: the session's total (checked)
        err = abs(got - exact) / exact if exact else float(got != 0)
        worst = max(worst, err)
        where = "" if len(keys) == len(keyed) else " over the %d rows not stepped" % len(keys)
        check(run, err <= TOTAL_BOUND, "%s: extrapolated total %d within %d%% of the exact %d%s "
              "(%.3f%%)" % (name, got, round(100 * TOTAL_BOUND), exact, where, 100 * err),
              "off by %.3f%%" % (100 * err))
        if where:
            whole = sum(int(r[name]) for r in dicts)
            print("    %s over all rows: %d against %d (%+.3f%%)" %
                  (name, whole, totals[name], 100.0 * (whole - totals[name]) / totals[name]))
    print("    worst error of an extrapolated total: %.3f%%" % (100 * worst))


def row_keys(dicts):
    return {(int(r["domain"]), int(r["vcpu"]), int(r["interval"])): r for r in dicts}


def load_references(run, path, dicts, names, totals):
    """The exact counts per row (pmu.interval.exact=on), checked: one per
    row, every event, adding up to the session's exact totals."""
    try:
        refs = references(path)
    except SystemExit:
        refs = None
    keyed = row_keys(dicts)
    ok = refs is not None and set(refs) == set(keyed) and \
        all(len(ref) == len(names) and None not in ref for ref in refs.values())
    check(run, ok, "an exact reference after each of the %d rows, every event's count in it" %
          len(keyed), "%s references" % (len(refs) if refs is not None else "unreadable"))
    if not ok:
        return None
    off = [n for e, n in enumerate(names) if sum(ref[e] for ref in refs.values()) != totals[n]]
    check(run, not off, "the rows' exact references add up to the session's exact totals",
          "not for %s" % off)
    return refs


def check_row_bounds(run, dicts, refs, names):
    """Per row and event: a measured value is the exact count; an
    extrapolated one is raw x enabled / running rounded (docs/log-format.md)
    with raw at most the exact count (its set's turns are part of the
    interval), so the value is at most exact x enabled / running."""
    bad = []
    for k, r in row_keys(dicts).items():
        enabled = int(r["enabled"])
        for e, name in enumerate(names):
            raw, running, how = int(r[name + ":raw"]), int(r[name + ":running"]), r[name + ":how"]
            value, exact = int(r[name]), refs[k][e]
            if how == "measured":
                good = value == exact == raw
            elif how == "extrapolated":
                good = 0 < running and raw <= exact and \
                    value == (raw * enabled + running // 2) // running
            else:
                good = value == 0 and running == 0
            if not good:
                bad.append("row %d %s: %s %d raw %d running %d exact %d" %
                           (k[2], name, how, value, raw, running, exact))
    check(run, not bad, "every row: measured values exact, extrapolated ones raw x enabled / "
          "running with raw at most the exact count", "%d off, e.g. %s" % (len(bad), bad[:3]))


def check_phases(run, dicts, phases):
    if not all(p in phases for p in ("compute", "syscall", "fault")):
        check(run, False, "the workload printed its phases", "got %s" % sorted(phases))
        return
    def k_share(rows):
        return mean([int(r["instructions:k"]) / int(r["instructions"]) for r in rows])
    def exits(rows):
        return mean([int(r["exits:all"]) for r in rows])
    comp, sysc, flt = (rows_in(dicts, phases[p]) for p in ("compute", "syscall", "fault"))
    check(run, len(comp) >= 5 and len(sysc) >= 3 and len(flt) >= 3,
          "rows inside each phase: compute %d, syscall %d, fault %d" % (len(comp), len(sysc), len(flt)),
          "too few")
    if not comp or not sysc or not flt:
        return
    kc, ks, kf = k_share(comp), k_share(sysc), k_share(flt)
    ec, es, ef = exits(comp), exits(sysc), exits(flt)
    print("    instructions:k share: compute %.4f, syscall %.4f, fault %.4f" % (kc, ks, kf))
    print("    exits:all per interval: compute %.1f, syscall %.1f, fault %.1f" % (ec, es, ef))
    check(run, kc < 0.05 and ks > 0.5 and ks >= 10 * kc,
          "syscall phase's instructions:k share >= 10x the compute phase's (%.4f vs %.4f)" % (ks, kc),
          "shares %.4f %.4f" % (ks, kc))
    check(run, es >= 50 * max(ec, 1), "syscall phase's exits per interval >= 50x the compute "
          "phase's (%.1f vs %.1f)" % (es, ec), "%.1f vs %.1f" % (es, ec))
    check(run, kf > 0.5 and ef >= 10 * max(ec, 1), "page-fault phase: kernel-heavy with exits "
          "(k share %.4f, %.1f exits per interval)" % (kf, ef), "k %.4f exits %.1f" % (kf, ef))


def check_trace(run, path, events):
    try:
        with open(path) as f:
            trace = json.load(f)
    except ValueError as e:
        check(run, False, "timeline JSON parses", str(e))
        return
    evs = trace.get("traceEvents") if isinstance(trace, dict) else None
    bad = [e for e in evs or [] if not (
        isinstance(e, dict) and isinstance(e.get("name"), str) and e.get("ph") in ("M", "C") and
        isinstance(e.get("ts"), (int, float)) and isinstance(e.get("pid"), int) and
        isinstance(e.get("tid"), int) and
        (e["ph"] != "C" or (isinstance(e.get("args"), dict) and e["args"] and
                            all(isinstance(v, (int, float)) for v in e["args"].values()))))]
    check(run, evs and not bad, "timeline JSON: %d trace events with the Trace Event format's "
          "required fields (name, ph, ts, pid, tid; counters' args)" % len(evs or []),
          "bad events: %s" % bad[:2])
    tracks = {e["name"] for e in evs or [] if e.get("ph") == "C"}
    check(run, tracks == set(events), "timeline JSON: one counter track per event (%d)" % len(tracks),
          "tracks %s" % sorted(tracks ^ set(events)))


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def check_png(run, path, what, min_w, min_h, min_bytes):
    import os
    dims = png_size(path) if os.path.exists(path) else None
    size = os.path.getsize(path) if os.path.exists(path) else 0
    check(run, dims and dims[0] >= min_w and dims[1] >= min_h and size >= min_bytes,
          "%s PNG: %sx%s pixels, %d bytes (>= %dx%d, %d)" % (what, dims and dims[0], dims and dims[1],
                                                          size, min_w, min_h, min_bytes),
          "not a PNG of that size")


def check_correlation(run, path, a, b, minimum):
    header, rows = read_rows(path)
    intervals = int(header[0].split("=")[1]) if header[0].startswith("intervals=") else 0
    table = {row[0]: dict(zip(header[1:], row[1:])) for row in rows}
    value = table.get(a, {}).get(b, "")
    r = float(value) if value else float("nan")
    check(run, intervals >= 10 and r >= minimum, "correlate: r(%s, %s) = %.3f >= %.2f over %d "
          "intervals of the compute and syscall phases" % (a, b, r, minimum, intervals),
          "r %s over %d" % (value, intervals))


def main():
    p = argparse.ArgumentParser()
    for opt in ("run", "csv", "json", "png", "heat", "corr", "totals", "phases", "hv-line",
                "decode"):
        p.add_argument("--" + opt, required=True)
    p.add_argument("--interval", type=int, required=True)
    p.add_argument("--skid", type=int, required=True)
    a = p.parse_args()
    header, rows = read_rows(a.csv)
    why = csv_valid(header, rows)
    check(a.run, not why, "timeline CSV: %d rows of %d columns, counts and marks valid" %
          (len(rows), len(header)), why)
    # "enabled": the row's own instructions (the fourth column), which an
    # event named instructions would hide in a dict keyed by the header
    dicts = [dict(zip(header, row), enabled=row[3]) for row in rows]
    events = event_names(header)
    check_numbering(a.run, dicts, a.interval, a.skid, a.hv_line)
    totals = {kv.split("=")[0]: int(kv.split("=")[1]) for kv in a.totals.split()}
    check(a.run, set(totals) == set(events), "the rows hold every event of the session (%d)" %
          len(events), "rows %s, totals %s" % (events, sorted(totals)))
    refs = load_references(a.run, a.decode, dicts, events, totals) \
        if set(totals) == set(events) else None
    if refs is not None:
        check_row_bounds(a.run, dicts, refs, events)
        check_totals(a.run, dicts, totals, refs, events)
    check_phases(a.run, dicts, phase_windows(a.phases))
    check_trace(a.run, a.json, events)
    check_png(a.run, a.png, "timeline", 900, 150 * len(events), 20000)
    check_png(a.run, a.heat, "correlation heat map", 400, 400, 5000)
    check_correlation(a.run, a.corr, "instructions:k", "exits:all", 0.9)
    return 1 if failed() else 0


if __name__ == "__main__":
    sys.exit(main())
