#!/usr/bin/env python3
"""Checks outputs of the host tools with real parsers (tests/e2e/hostile-corpus.sh).

Reads lines "FORMAT PATH" on stdin and prints "OK PATH" or "BAD PATH: why"
for each; exits 1 if any is bad. Formats:
  json    Python's json module (strict: no raw control characters in strings)
  csv     Python's csv module: every row as wide as the header
  tsv     every line as many tabs as the header, no CR
  folded  "FRAME;FRAME;... COUNT" lines
  text    a report for a terminal
Every output must be valid UTF-8 (decoded strictly) and hold no control
character a terminal acts on (C0 but TAB and LF, DEL, C1: ESC sequences,
CR overwriting a line, U+009B CSI). pprof is checked by protoc, not here.
"""
import csv
import io
import json
import re
import sys

FORBIDDEN = re.compile('[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]')


def text_of(path):
    with open(path, 'rb') as f:
        data = f.read()
    text = data.decode('utf-8')          # strict: raises on invalid UTF-8
    return text


def check_terminal_safe(text):
    m = FORBIDDEN.search(text)
    if m:
        raise ValueError('control character U+%04X at offset %d' % (ord(m.group()), m.start()))


def check_json(text):
    json.loads(text)
    check_terminal_safe(text)


def check_csv(text):
    rows = list(csv.reader(io.StringIO(text, newline=''), strict=True))
    if not rows:
        raise ValueError('no header')
    width = len(rows[0])
    for i, row in enumerate(rows[1:], 2):
        if len(row) != width:
            raise ValueError('row %d has %d fields, the header %d' % (i, len(row), width))
    check_terminal_safe(text.replace('\r\n', '\n'))


def check_tsv(text):
    if '\r' in text:
        raise ValueError('a carriage return')
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    if not lines:
        raise ValueError('no header')
    tabs = lines[0].count('\t')
    for i, line in enumerate(lines[1:], 2):
        if line.count('\t') != tabs:
            raise ValueError('line %d has %d tabs, the header %d' % (i, line.count('\t'), tabs))
    check_terminal_safe(text)


def check_folded(text):
    for i, line in enumerate(text.splitlines(), 1):
        if not re.fullmatch(r'.+ [0-9]+', line):
            raise ValueError('line %d is no "STACK COUNT": %r' % (i, line[:80]))
    check_terminal_safe(text)


def check_text(text):
    check_terminal_safe(text)


CHECKS = {'json': check_json, 'csv': check_csv, 'tsv': check_tsv, 'folded': check_folded,
          'text': check_text}


def main():
    bad = 0
    for line in sys.stdin:
        fmt, path = line.rstrip('\n').split(' ', 1)
        try:
            CHECKS[fmt](text_of(path))
            print('OK %s' % path)
        except (ValueError, UnicodeDecodeError, json.JSONDecodeError, csv.Error) as e:
            print('BAD %s: %s' % (path, e))
            bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
