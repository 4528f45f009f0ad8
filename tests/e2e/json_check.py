#!/usr/bin/env python3
"""Checks `vertigo report --json` and `vertigo stats --json` against their
documented schemas (docs/user-guide.md, "JSON output") with Python's JSON
parser, and against the text outputs of the same commands.

usage: json_check.py report REPORT.json REPORT.txt
       json_check.py stats STATS.json STATS.txt
Prints PASS:/FAIL: lines; exits 1 if any check failed."""
import json
import re
import sys

failed = False


def check(name, ok, why=""):
    global failed
    print(("PASS: " if ok else "FAIL: ") + "json: " + name + ("" if ok else " (" + why + ")"))
    failed |= not ok


def typed(obj, spec, where):
    """Every key of spec in obj with its type (a tuple of types)."""
    bad = [k for k, t in spec.items() if k not in obj or not isinstance(obj[k], t)]
    return not bad, where + ": " + ", ".join(bad)


NUM = (int, float)
REPORT = {"schema": (str,), "source": (str,), "events": (list,), "total_samples": (int,),
          "modes": (dict,), "domains": (list,), "lost": (dict,), "sort": (list,),
          "children": (bool,), "percent_limit": NUM, "rows": (list,)}
EVENT = {"id": (int,), "name": (str,), "samples": (int,), "event_count": (int,),
         "period": (int, type(None))}
ROW = {"overhead": NUM, "samples": (int,), "children": NUM, "children_samples": (int,),
       "events": (dict,)}
SYMBOL = {"symbol": (str,), "mode": (str,), "known": (bool,), "source_file": (str, type(None)),
          "source_line": (int,)}
KEY_FIELDS = {"comm": "comm", "pid": "pid", "dso": "dso", "domain": "domain", "vcpu": "vcpu",
              "sym": "symbol"}


def check_report(doc, text):
    check("report: schema vertigo-report/1", doc.get("schema") == "vertigo-report/1", str(doc.get("schema")))
    check("report: top-level keys and types", *typed(doc, REPORT, "report"))
    for e in doc["events"]:
        check("report: event %s typed" % e.get("name"), *typed(e, EVENT, "event"))
    total = int(re.search(r"^# Total samples: (\d+)$", text, re.M).group(1))
    check("report: total_samples = the text's (%d)" % total, doc["total_samples"] == total,
          str(doc["total_samples"]))
    check("report: modes add up to the total", sum(doc["modes"].values()) == total, str(doc["modes"]))
    check("report: events' samples add up to the total",
          sum(e["samples"] for e in doc["events"]) == total, "")
    rows_ok = all(typed(r, ROW, "row")[0] for r in doc["rows"])
    check("report: %d rows typed" % len(doc["rows"]), rows_ok and len(doc["rows"]) > 0, "")
    keys_ok = all(KEY_FIELDS[k] in r for r in doc["rows"] for k in doc["sort"])
    check("report: every row has its sort keys (%s)" % ",".join(doc["sort"]), keys_ok, "")
    if "sym" in doc["sort"]:
        check("report: symbol rows typed", all(typed(r, SYMBOL, "row")[0] for r in doc["rows"]), "")
    check("report: rows' samples add up to the total",
          sum(r["samples"] for r in doc["rows"]) == total, "")
    text_rows = [l for l in text.splitlines() if l and not l.startswith("#")]
    check("report: as many rows as the text (%d)" % len(text_rows), len(text_rows) == len(doc["rows"]),
          str(len(doc["rows"])))
    same = all(abs(float(t.split()[0].rstrip("%")) - r["overhead"]) < 0.006 and int(t.split()[1]) == r["samples"]
               for t, r in zip(text_rows, doc["rows"]))
    check("report: each row's overhead and samples as the text shows them", same, "")


STATS = {"schema": (str,), "header": (dict, type(None)), "bytes": (dict,), "headers": (int,),
         "blocks": (int,), "records": (int,), "records_by_type": (dict,), "cpus": (list,),
         "loss": (dict,), "problems": (dict,), "time_span": (dict, type(None)),
         "pmu_totals": (list,), "pmu_totals_not_shown": (int,), "domains": (list,)}


def check_stats(doc, text):
    check("stats: schema vertigo-stats/1", doc.get("schema") == "vertigo-stats/1", str(doc.get("schema")))
    check("stats: top-level keys and types", *typed(doc, STATS, "stats"))
    m = re.search(r"^blocks: (\d+)  records: (\d+)$", text, re.M)
    check("stats: blocks and records = the text's", m and int(m.group(1)) == doc["blocks"]
          and int(m.group(2)) == doc["records"], str(m and m.groups()))
    check("stats: records by type add up to the records",
          sum(doc["records_by_type"].values()) == doc["records"], "")
    for name, n in doc["records_by_type"].items():
        ok = re.search(r"^  %s +%d  " % (re.escape(name), n), text, re.M) is not None
        if not ok:
            check("stats: %s records as the text shows them" % name, False, "")
            return
    check("stats: every type's records as the text shows them", True)
    check("stats: cpus' records add up", sum(c["records"] for c in doc["cpus"]) == doc["records"], "")


def main():
    kind, json_path, text_path = sys.argv[1:4]
    with open(text_path) as f:
        text = f.read()
    try:
        with open(json_path) as f:
            doc = json.load(f)
    except ValueError as e:
        check("%s: Python's JSON parser reads it" % kind, False, str(e))
        return 1
    check("%s: Python's JSON parser reads it" % kind, True)
    (check_report if kind == "report" else check_stats)(doc, text)
    return 1 if failed else 0


sys.exit(main())
