#!/usr/bin/env python3
"""Checks the interval rows of guest multiplexing sessions on several VCPUs
of several domains (tests/e2e/domains-smp.sh), as `vertigo timeline
--format csv` names them: each VCPU's rows hold exactly the events of its
own session's list, by name (no other session's event is in them: those
say "absent"), as many rows as vertigo-ctl said its session wrote; every
row's `instructions` event, counted all along (one set of counters),
equals the row's own instruction count, and `instructions:u` is at most
that. Prints "PASS: RUN: name" or "FAIL: RUN: name (why)" per check.

usage: mux_vcpus_check.py --run NAME --csv F
                          --vcpu DOMAIN:VCPU:ROWS:EVENT,EVENT,... [--vcpu ...]
"""
import argparse
import csv
import sys

from e2e_report import check, failed


def rows_by_vcpu(path):
    """{(domain, vcpu): [(instructions, {NAME: (value, how)})]} and the
    event names of the header: its first six columns are the row's (the
    fourth, instructions, its own count), then four per event."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        names = header[6::4]
        out = {}
        for fields in reader:
            events = {}
            for k, name in enumerate(names):
                value, how = fields[6 + 4 * k], fields[9 + 4 * k]
                events[name] = (int(value) if value else None, how)
            out.setdefault((int(fields[0]), int(fields[1])), []).append((int(fields[3]), events))
    return out, names


def check_vcpu(run, rows, names, domain, vcpu, want_rows, events):
    who = "dom %d vcpu %d" % (domain, vcpu)
    have = sorted({n for _, ev in rows for n in names if ev[n][1] != "absent"})
    check(run, have == sorted(events), "%s: its rows hold its session's events %s" %
          (who, ",".join(events)), "they hold %s" % ",".join(have))
    check(run, len(rows) == want_rows, "%s: %d rows, as vertigo-ctl said" % (who, want_rows),
          "%d in the log" % len(rows))
    if "instructions" not in events:
        return
    bad = [(n, ev["instructions"]) for n, ev in rows if ev["instructions"] != (n, "measured")]
    check(run, rows and not bad, "%s: every row's instructions event, measured, is the row's "
          "own count (%s instructions)" % (who, "{:,}".format(sum(n for n, _ in rows))),
          "%d of %d rows differ, e.g. %s" % (len(bad), len(rows), bad[:1]))
    if "instructions:u" in events:
        over = [n for n, ev in rows if ev["instructions:u"][0] is None or
                ev["instructions:u"][0] > ev["instructions"][0]]
        check(run, not over, "%s: instructions:u at most instructions in every row" % who,
              "%d rows exceed it" % len(over))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True)
    ap.add_argument("--csv", required=True)
    ap.add_argument("--vcpu", action="append", required=True)
    a = ap.parse_args()
    by_vcpu, names = rows_by_vcpu(a.csv)
    want = set()
    for spec in a.vcpu:
        domain, vcpu, want_rows, events = spec.split(":", 3)
        key = (int(domain), int(vcpu))
        want.add(key)
        check_vcpu(a.run, by_vcpu.get(key, []), names, key[0], key[1],
                   int(want_rows) if want_rows.isdigit() else -1,   # -1: vertigo-ctl said none
                   events.split(","))
    others = sorted(set(by_vcpu) - want)
    check(a.run, not others, "no rows of other VCPUs", "rows of %s" % others)
    return 1 if failed() else 0


if __name__ == "__main__":
    sys.exit(main())
