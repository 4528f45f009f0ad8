#!/usr/bin/env python3
"""Checks the gnuplot scripts `vertigo timeline --format png` and `vertigo
correlate --format png` keep with --gnuplot-script (and their data), so a
plot says what it shows: a title naming the log and the interval, every
count panel's y axis from 0 labelled with its event and "per N instr.",
the x axis with its unit and the platform, extrapolated and unmeasured
values marked where the data has them; the heat map's title with its
number of intervals, r's colour range -1..1 with its label, and every
undefined r (an event constant over the intervals) grey, labelled "undef"
and in the legend, never written as a number.

usage: plot_check.py timeline SCRIPT PNG NAME INTERVAL PLATFORM X
       plot_check.py correlate SCRIPT PNG NAME INTERVALS
X is "time" or "instructions". Prints PASS:/FAIL: lines; exits 1 if any
check failed."""
import re
import sys

failed = False


def check(name, ok, why=""):
    global failed
    print(("PASS: " if ok else "FAIL: ") + "plot: " + name + ("" if ok or not why else " (" + why + ")"))
    failed |= not ok


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def data_columns(path):
    """The data's rows (blank lines dropped) as lists of strings."""
    with open(path) as f:
        return [line.split() for line in f if line.strip()]


def check_timeline(script, png, name, interval, platform, x):
    text = open(script).read()
    m = re.search(r"^set multiplot layout (\d+),1 title '([^\n]*)'", text, re.M)
    check("timeline: a title", m is not None, "no multiplot title")
    if not m:
        return
    panels, title = int(m.group(1)), m.group(2)
    check("timeline: the title names the log (%s)" % name, name in title, title)
    check("timeline: the title gives the interval (%s instructions)" % interval,
          "per interval of %s retired instructions" % interval in title, title)
    blocks = text.split("\nplot ")[1:]
    settings = text.split("\nplot ")[:-1]
    check("timeline: %d panels, one plot each" % panels, len(blocks) == panels, "%d plots" % len(blocks))
    ranges = re.findall(r"^set yrange \[(-?\d+):(\d+)\]$", text, re.M)
    check("timeline: every count axis starts at 0 and ends above it (%d)" % len(ranges),
          len(ranges) == panels and all(lo == "0" and int(hi) > 0 for lo, hi in ranges), str(ranges))
    labels = re.findall(r'^set ylabel "([^"\n]*)\\n(per [0-9,]+ instr\.)"$', text, re.M)
    check("timeline: every y axis names its event and its unit (per %s instr.)" % interval,
          len(labels) == panels and all(u == "per %s instr." % interval for _, u in labels), str(labels[:3]))
    xl = [v.replace("''", "'") for v in re.findall(r"^set xlabel '((?:[^'\n]|'')*)'$", text, re.M)]
    want = ("time (s, emulated time on %s" % platform if x == "time"
            else "retired instructions (millions), on %s" % platform)
    check("timeline: the x axis gives its unit and the platform (%s)" % want,
          len(xl) == 1 and want in xl[0], str(xl))
    rows = data_columns(script + ".dat")
    extrap, unmeasured = set(), set()
    for r in rows:
        for e in range((len(r) - 1) // 3):
            if r[2 + 3 * e] != "NaN":
                extrap.add(e)
            if r[3 + 3 * e] != "NaN":
                unmeasured.add(e)
    marks_ok = True
    for block in blocks:
        cols = [int(c) for c in re.findall(r"using 1:(\d+)", block)]
        e = (cols[0] - 2) // 3
        has_x = "'extrapolated (shared a counter)'" in block
        has_u = "'not measured (no value)'" in block
        marks_ok &= has_x == (e in extrap) and has_u == (e in unmeasured)
    check("timeline: extrapolated and unmeasured values marked exactly where the data has them "
          "(%d and %d events)" % (len(extrap), len(unmeasured)), marks_ok)
    check("timeline: no NaN axis, no negative range", "[-" not in text)
    size = png_size(png)
    check("timeline: the PNG (%s)" % (size,), size is not None and size[1] >= 150 * panels)


def check_correlate(script, png, name, intervals):
    text = open(script).read()
    m = re.search(r'^set title "([^"\n]*)"', text, re.M)
    check("correlate: a title naming the log and its %s intervals" % intervals,
          m is not None and ("over %s intervals of %s" % (intervals, name)) in m.group(1).replace("\\n", " "),
          m and m.group(1))
    check("correlate: r's colours from -1 to 1, labelled",
          "set cbrange [-1:1]" in text and re.search(r"^set cblabel 'Pearson r", text, re.M) is not None)
    values = [v for row in data_columns(script + ".dat") for v in row]
    check("correlate: no NaN in the data (%d cells)" % len(values), "NaN" not in values)
    undefined = values.count("2")
    legend = "keyentry with boxes fillstyle solid fc rgb '#a0a0a0' title 'undefined r" in text
    check("correlate: %d undefined r: grey with a legend entry" % undefined,
          (undefined > 0) == legend and ("undef" in text) and "behind fillcolor rgb '#a0a0a0'" in text)
    check("correlate: an undefined r is never a number",
          "$3 > 1 ? NaN : $3" in text and "$3 > 1 ? 'undef'" in text)
    size = png_size(png)
    check("correlate: the PNG (%s)" % (size,), size is not None and min(size) >= 300)


def main():
    if sys.argv[1] == "timeline":
        check_timeline(*sys.argv[2:8])
    else:
        check_correlate(*sys.argv[2:6])
    return 1 if failed else 0


sys.exit(main())
