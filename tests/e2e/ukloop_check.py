#!/usr/bin/env python3
"""Checks a unikernel domain that ran ukloop (guestlib/unikernel/tests/
ukloop.c) in a boot of several domains: its console capture (the runner's
domN.txt) and Vertigo's console. The counts ukloop prints are Vertigo's
per-domain instructions:u, read by VERTIGO_HC_PMU_READ from CPL 3; they
must equal the known counts exactly whatever other domains ran in between:
1,003 for the straight-line block, 3 N between the loop over 2N and over
N iterations, the same count for the second run over N. Prints "PASS:
name" or "FAIL: name (why)" per check, as tests/e2e/lib.sh does; exits 1
if any failed.

usage: ukloop_check.py --run NAME --console DOMN_TXT --vertigo COM2_TXT
                       --domain N --n ITERATIONS
"""
import argparse
import re
import sys

from e2e_report import check, failed

BLOCK = 1003            # ukloop's BLOCK_NOPS + BLOCK_EXTRA
LOOP_INSTRUCTIONS = 3   # VERTIGO_LOOP_INC_INSTRUCTIONS
COUNTED = re.compile(r"^ukloop: counted block (\d+) loop (\d+) "
                     r"\(N=(\d+): (\d+), 2N: (\d+), N again: (\d+)\)$")
SUMMARY = re.compile(r"^ukloop: (\d+) passed, (\d+) failed$")


def lines(path):
    try:
        with open(path, errors="replace") as f:
            return [line.rstrip("\r\n") for line in f]
    except OSError as e:
        return ["(cannot read %s: %s)" % (path, e)]


def check_counts(run, console, n):
    found = [COUNTED.match(line) for line in console]
    found = [m for m in found if m]
    check(run, len(found) == 1, "ukloop printed its counts once",
          "%d 'ukloop: counted' lines" % len(found))
    if len(found) != 1:
        return
    block, diff, got_n, once, twice, again = (int(x) for x in found[0].groups())
    check(run, got_n == n, "ukloop ran N = %d" % n, "it ran N = %d" % got_n)
    check(run, block == BLOCK, "instructions:u of the straight-line block exact (%d)" % BLOCK,
          "counted %d" % block)
    check(run, diff == twice - once == LOOP_INSTRUCTIONS * n,
          "instructions:u of 2N minus N iterations exact (%d)" % (LOOP_INSTRUCTIONS * n),
          "counted %d - %d = %d" % (twice, once, twice - once))
    check(run, again == once, "the second run over N counts the same (%d)" % once,
          "counted %d then %d" % (once, again))


def check_verdicts(run, console, vertigo, domain):
    summary = [SUMMARY.match(line) for line in console]
    summary = [m for m in summary if m]
    fails = [line for line in console if line.startswith("ukloop: FAIL")]
    check(run, len(summary) == 1 and summary[0].group(2) == "0" and not fails,
          "ukloop's own checks passed",
          "; ".join(fails) or "summary: %s" % (summary[0].group(0) if summary else "none"))
    verdict = re.compile(r"^guest: domain %d \([^)]*\) verdict PASS\b" % domain)
    check(run, any(verdict.match(line) for line in vertigo),
          "Vertigo's verdict for domain %d is PASS" % domain,
          "no 'guest: domain %d (NAME) verdict PASS' line" % domain)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True)
    ap.add_argument("--console", required=True)
    ap.add_argument("--vertigo", required=True)
    ap.add_argument("--domain", type=int, required=True)
    ap.add_argument("--n", type=int, required=True)
    args = ap.parse_args()
    console = lines(args.console)
    check_counts(args.run, console, args.n)
    check_verdicts(args.run, console, lines(args.vertigo), args.domain)
    return 1 if failed() else 0


if __name__ == "__main__":
    sys.exit(main())
