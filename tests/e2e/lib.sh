# Helpers for end-to-end tests: run Vertigo through host-tools/vertigo-run
# and check its exit status and console captures. Each check prints
# "PASS: name" or "FAIL: name (why)"; tests/run-tests counts those lines.
BUILD=${BUILD:-build}
E2E_OUT="$BUILD/e2e"
RUNNER=host-tools/vertigo-run

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1 ($2)"; }

# run_vertigo NAME EXPECTED_STATUS [runner options...]
# Runs one boot with captures in $E2E_OUT/NAME and checks the exit status.
run_vertigo() {
    local name=$1 want=$2
    shift 2
    local dir="$E2E_OUT/$name"
    mkdir -p "$E2E_OUT"
    "$RUNNER" --elf "$BUILD/vertigo.elf" --out "$dir" --quiet "$@" 2>"$dir.runner.txt"
    local got=$?
    mkdir -p "$dir"
    cat "$dir.runner.txt"
    if [ "$got" -eq "$want" ]; then
        pass "$name: exit status $want"
    else
        fail "$name: exit status" "expected $want, got $got; captures in $dir"
    fi
}

# console NAME: the run's console text (COM1 capture, CRs removed)
console() { tr -d '\r' < "$E2E_OUT/$1/serial.txt"; }

# expect_line NAME LABEL REGEX: the console of run NAME has a line matching REGEX
expect_line() {
    if console "$1" | grep -qE -- "$3"; then
        pass "$1: $2"
    else
        fail "$1: $2" "no console line matches /$3/ in $E2E_OUT/$1/serial.txt"
    fi
}

# expect_no_line NAME LABEL REGEX
expect_no_line() {
    if console "$1" | grep -qE -- "$3"; then
        fail "$1: $2" "unexpected line matching /$3/ in $E2E_OUT/$1/serial.txt"
    else
        pass "$1: $2"
    fi
}
