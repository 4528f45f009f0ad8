"""The verdict lines of the Python e2e checkers (mux_check.py,
ukloop_check.py): "PASS: RUN: name" or "FAIL: RUN: name (why)", as
tests/e2e/lib.sh prints them for tests/run-tests to count."""

_failed = False


def check(run, ok, name, why=""):
    """Prints the line of one check; remembers a failure."""
    global _failed
    if ok:
        print("PASS: %s: %s" % (run, name))
    else:
        _failed = True
        print("FAIL: %s: %s (%s)" % (run, name, why))


def failed():
    """True once any check failed."""
    return _failed
