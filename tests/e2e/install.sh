#!/bin/bash
# Host-only test of `make install` into a temporary DESTDIR (PREFIX=/usr):
# the command and its runner, a manual page for `vertigo` and each command
# it lists (man -l renders every page with no warning), the guest counter
# library's page, header, libraries and pkg-config file; a C and a C++
# program build against the installed tree through pkg-config and run
# (outside Vertigo: the library says so, and lists its events). Prints
# PASS:/FAIL: lines.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
out="$E2E_OUT/install"
rm -rf "$out"
mkdir -p "$out"
dest="$out/dest"
if make --no-print-directory BUILD="$BUILD" install DESTDIR="$dest" PREFIX=/usr >"$out/make.log" 2>&1; then
    pass "install: make install DESTDIR=... PREFIX=/usr"
else
    fail "install: make install" "$(tail -n 3 "$out/make.log")"
    exit 1
fi
usr="$dest/usr"
for f in bin/vertigo bin/vertigo-run include/vertigo_counters.h include/vertigo/hypercall.h \
         include/vertigo/thread_page.h lib/libvertigo_counters.a lib/libvertigo_counters.so.1 \
         lib/pkgconfig/vertigo_counters.pc share/man/man1/vertigo.1 share/man/man3/vertigo_counters.3; do
    [ -e "$usr/$f" ] && pass "install: /usr/$f" || fail "install: /usr/$f" "missing"
done
"$usr/bin/vertigo" --version | grep -q '^vertigo ' && pass "install: the installed vertigo runs (--version)" ||
    fail "install: the installed vertigo runs" "no version"

# A page for every command, each rendered by man with no warning.
mapfile -t cmds < <("$usr/bin/vertigo" help | sed -n '/^commands:/,/^$/p' | sed -nE 's/^  ([a-z-]+) .*/\1/p')
pages=(share/man/man1/vertigo.1 share/man/man3/vertigo_counters.3)
for c in "${cmds[@]}"; do pages+=("share/man/man1/vertigo-$c.1"); done
for p in "${pages[@]}"; do
    name=$(basename "$p")
    MANWIDTH=80 man --warnings -l "$usr/$p" >"$out/$name.txt" 2>"$out/$name.err"
    rc=$?
    title=$(echo "${name%.*}" | tr a-z A-Z)
    if [ $rc -eq 0 ] && [ ! -s "$out/$name.err" ] && head -n1 "$out/$name.txt" | grep -q "^$title(" &&
       grep -q '^NAME' "$out/$name.txt" && grep -q '^SYNOPSIS' "$out/$name.txt"; then
        pass "install: man -l $name renders (NAME, SYNOPSIS, no warning)"
    else
        fail "install: man -l $name" "exit $rc: $(head -c 200 "$out/$name.err")"
    fi
done
# The pages say what --help says: every option of report's --help is in its page.
missing=0
for opt in $("$usr/bin/vertigo" report --help | grep -oE '^  (-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+'); do
    grep -q -- "$opt" "$out/vertigo-report.1.txt" || { missing=$((missing + 1)); echo "missing $opt" >&2; }
done
[ $missing = 0 ] && pass "install: vertigo-report(1) has every option of report --help" ||
    fail "install: vertigo-report(1) options" "$missing missing"
grep -q 'vertigo_counters_event' "$out/vertigo_counters.3.txt" &&
    pass "install: vertigo_counters(3) documents the event list" ||
    fail "install: vertigo_counters(3) content" "missing"

# Programs built against the installed tree.
export PKG_CONFIG_PATH="$usr/lib/pkgconfig"
flags=$(pkg-config --cflags --libs --static vertigo_counters)
echo "$flags" | grep -q -- "-I$usr/lib/pkgconfig/../../include" &&
    pass "install: pkg-config points into the installed tree ($flags)" || fail "install: pkg-config" "$flags"
cat >"$out/prog.c" <<'EOF'
#include <stdio.h>
#include <vertigo_counters.h>
int main(void)
{
    struct vertigo_counters *set;
    int e = vertigo_counters_open("instructions:u", &set);
    printf("open: %s\n", vertigo_counters_strerror(e));
    for (unsigned int i = 0; vertigo_counters_event(i); i++)
        printf("event: %s\n", vertigo_counters_event(i));
    return e == VERTIGO_CTR_ENOVERTIGO ? 0 : 1;
}
EOF
cp "$out/prog.c" "$out/prog.cpp"
if cc -std=c11 -Wall -Werror -static "$out/prog.c" $flags -o "$out/prog-c" 2>"$out/cc.err" &&
   g++ -std=c++11 -Wall -Werror -pedantic -static "$out/prog.cpp" $flags -o "$out/prog-cpp" 2>>"$out/cc.err"; then
    pass "install: a C and a C++ program build against the installed header and library"
else
    fail "install: C and C++ programs build" "$(head -c 300 "$out/cc.err")"
fi
for p in prog-c prog-cpp; do
    "$out/$p" >"$out/$p.txt" 2>&1
    rc=$?
    [ $rc -eq 0 ] && grep -qx 'open: not running under Vertigo' "$out/$p.txt" &&
        [ "$(sed -n 's/^event: //p' "$out/$p.txt" | tr '\n' ' ')" = "instructions cycles ref-cycles " ] &&
        pass "install: $p runs: not under Vertigo, events instructions cycles ref-cycles" ||
        fail "install: $p runs" "exit $rc: $(tr '\n' ' ' <"$out/$p.txt")"
done
exit $E2E_FAILED
