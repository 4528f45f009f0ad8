#!/usr/bin/env python3
"""Accuracy of an interval multiplexing run, for tests/bench/bench_mux.sh.

  bench_mux_accuracy.py CSV TOTALS [DECODE]

CSV: `vertigo timeline` of the run (every event, in id order); TOTALS:
"name=count ..." the exact totals of the run (`vertigo stats`' PMU
totals line); DECODE: `vertigo decode` of a run with
pmu.interval.exact=on, whose swcounters records follow each interval row
with the exact counts of that interval (docs/log-format.md).

Prints, per event, the extrapolated total (the rows' sum) against the
exact one and, with DECODE, the per-interval errors: the absolute errors
of the full rows summed and divided by the exact sum ("sum|err|"), and
the median and 95th percentile of the per-row relative error over the
rows where the event's exact count is at least 1 % of its mean; then,
for the events whose total is off by more than 1 %, how much of that
error comes from the intervals where the guest halted (an exits:hlt
count: idle, Vertigo working while no guest instruction retires). Fails
(status 1) if a figure cannot be computed: rows and references that do
not pair up, an event missing."""
import csv
import sys


def die(why):
    print("bench_mux_accuracy: %s" % why, file=sys.stderr)
    sys.exit(1)


def event_names(header):
    return [h for h in header[6:] if not h.endswith((":raw", ":running", ":how"))]


def references(decode_path):
    """{(dom, vcpu, number): [exact count per event id]} from the decode."""
    last, refs = {}, {}
    with open(decode_path) as f:
        for line in f:
            words = line.split()        # @OFF cpu= seq= #N tsc= TYPE fields...
            kind = words[5] if len(words) > 5 and words[4].startswith("tsc=") else None
            if kind not in ("interval", "swcounters"):
                continue
            fields = dict(w.split("=", 1) for w in words if "=" in w)
            key = (int(fields["dom"]), int(fields["vcpu"]))
            if kind == "interval":
                last[key] = int(fields["number"])
                continue
            if key not in last or key + (last[key],) in refs:
                die("a swcounters record that follows no interval row of dom %d vcpu %d" % key)
            ids = {int(k): int(v) for k, v in fields.items() if k.isdigit()}
            refs[key + (last[key],)] = [ids.get(i) for i in range(len(ids))]
    return refs


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))] if values else float("nan")


def totals_table(names, rows, totals):
    worst = 0.0
    for name in names:
        if name not in totals:
            die("no exact total for %s" % name)
        exact = totals[name]
        got = sum(int(r[name]) for r in rows if r[name + ":how"] != "unmeasured")
        err = (got - exact) / exact if exact else float(got != 0)
        worst = max(worst, abs(err))
        print("  %-26s exact %14d  extrapolated %14d  %+8.3f %%" % (name, exact, got, 100 * err))
    print("  worst error of a total: %.3f %%" % (100 * worst))


def interval_table(names, rows, refs, totals):
    keyed = {(int(r["domain"]), int(r["vcpu"]), int(r["interval"])): r for r in rows}
    if set(keyed) != set(refs):
        die("%d rows and %d exact references do not pair up" % (len(keyed), len(refs)))
    last = {}
    for d, v, n in keyed:
        last[(d, v)] = max(n, last.get((d, v), n))
    full = [k for k in keyed if k[2] != last[k[:2]]]     # each VCPU's last row is short
    print("  per interval, over %d full rows (extrapolated against the exact count of the "
          "same interval):" % len(full))
    print("  %-26s %10s %10s %10s %10s" % ("event", "sum|err|", "median", "p95", "ref=total"))
    worst = 0.0
    for e, name in enumerate(names):
        exact = [refs[k][e] for k in full]
        if None in exact:
            die("a reference lacks event %d (%s)" % (e, name))
        got = [int(keyed[k][name]) for k in full]
        ref_sum = sum(refs[k][e] for k in refs)
        floor = 0.01 * sum(exact) / len(exact) if exact else 0
        rel = [abs(g - x) / x for g, x in zip(got, exact) if x > 0 and x >= floor]
        wmae = sum(abs(g - x) for g, x in zip(got, exact)) / sum(exact) if sum(exact) else 0.0
        worst = max(worst, wmae)
        print("  %-26s %9.3f%% %9.3f%% %9.3f%% %10s" % (
            name, 100 * wmae, 100 * percentile(rel, 0.5), 100 * percentile(rel, 0.95),
            "yes" if ref_sum == totals[name] else "NO"))
    print("  worst sum|err| of an event: %.3f %%" % (100 * worst))
    halted_share(names, keyed, refs)


def halted_share(names, keyed, refs):
    """Each event's total error split: intervals with HLT exits, the rest."""
    if "exits:hlt" not in names:
        return
    halted = {k for k, r in keyed.items() if int(r["exits:hlt"]) > 0}
    lines = []
    for e, name in enumerate(names):
        total = sum(refs[k][e] for k in keyed)
        def err(keys):
            return sum((int(keyed[k][name]) if keyed[k][name + ":how"] != "unmeasured" else 0) -
                       refs[k][e] for k in keys)
        if total and abs(err(keyed)) > 0.01 * total:
            lines.append("  %-26s total %+7.3f %%: %+7.3f %% from the halted intervals, %+7.3f %% "
                         "from the others" % (name, 100 * err(keyed) / total,
                                              100 * err(halted) / total,
                                              100 * err(set(keyed) - halted) / total))
    print("  errors of a total above 1 %%, and the %d of %d intervals where the guest halted:" %
          (len(halted), len(keyed)))
    print("\n".join(lines) if lines else "  (none)")


def main():
    if len(sys.argv) not in (3, 4):
        die("usage: bench_mux_accuracy.py CSV TOTALS [DECODE]")
    with open(sys.argv[1], newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = [dict(zip(header, r)) for r in reader]
    if not rows:
        die("no interval rows")
    names = event_names(header)
    totals = dict((kv.split("=")[0], int(kv.split("=")[1])) for kv in sys.argv[2].split())
    totals_table(names, rows, totals)
    if len(sys.argv) == 4:
        interval_table(names, rows, references(sys.argv[3]), totals)


if __name__ == "__main__":
    main()
