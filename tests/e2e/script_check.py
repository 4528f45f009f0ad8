#!/usr/bin/env python3
"""Checks `vertigo script` and `vertigo export --format perfetto` output.

  script_check.py fold SCRIPT_TXT FOLDED_TXT
      Folds perf-script text the way FlameGraph's stackcollapse-perf.pl
      does (header line "COMM PID [CPU] TIME: PERIOD EVENT:", frame lines
      "ADDR FUNC (DSO)" leaf first, a blank line ends a sample; "_[k]" for
      a kernel image: its name starts with "[" or ends in vmlinux, and is
      not unknown; "_[i]" for an "(inlined)" frame; ';' in a name becomes
      ':'), requires the times to never go back, and requires the same
      count per stack as the folded file (`vertigo export --format folded`,
      one event).
  script_check.py perfetto JSON VCPUS
      Loads the Trace Event JSON; every event has name, ph, ts, pid, tid;
      samples are "i" events whose "sf" names a stack frame; exactly VCPUS
      VCPU tracks (thread_name metadata) carry the samples.
Prints what it found; exits 1 on a mismatch."""
import collections
import json
import re
import sys

HEADER = re.compile(r'^(\S.+?)\s+(\d+)\s+\[(\d+)\]\s+(\d+\.\d+):\s+(\d+)\s+(\S+):\s*$')
FRAME = re.compile(r'^\s+([0-9a-f]+)\s+(.+) \((\S*)\)$')


def frame_name(func, dso):
    func = func.replace(';', ':')
    if dso == 'inlined':
        return func + '_[i]'
    if re.search(r'(^\[|vmlinux$)', dso) and 'unknown' not in dso:
        return func + '_[k]'
    return func


def fold_script(path):
    stacks = collections.Counter()
    last_time, samples, comm, frames = -1.0, 0, None, []
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        m = HEADER.match(line)
        if m:
            comm, frames = m.group(1), []
            t = float(m.group(4))
            if t < last_time:
                sys.exit('script: time goes back at %r' % line)
            last_time = t
            samples += 1
            continue
        m = FRAME.match(line)
        if m and comm is not None:
            frames.append(frame_name(m.group(2), m.group(3)))
            continue
        if line == '' and comm is not None:
            stacks[';'.join([comm] + frames[::-1])] += 1
            comm = None
            continue
        sys.exit('script: unexpected line %r' % line)
    return stacks, samples


def read_folded(path):
    stacks = collections.Counter()
    for line in open(path, encoding='utf-8', errors='replace'):
        stack, _, count = line.rstrip('\n').rpartition(' ')
        stacks[stack] += int(count)
    return stacks


def check_fold(script_path, folded_path):
    got, samples = fold_script(script_path)
    want = read_folded(folded_path)
    if got != want:
        diff = sorted(set(got.items()) ^ set(want.items()))[:10]
        sys.exit('script and folded differ (%d vs %d stacks): %s' % (len(got), len(want), diff))
    print('script: %d samples in time order, %d stacks, the same counts as folded'
          % (samples, len(got)))


def check_perfetto(path, vcpus):
    trace = json.load(open(path, encoding='utf-8'))
    events, frames = trace['traceEvents'], trace['stackFrames']
    for e in events:
        missing = [k for k in ('name', 'ph', 'ts', 'pid', 'tid') if k not in e]
        if missing:
            sys.exit('perfetto: event without %s: %r' % (missing, e))
    named = {(e['pid'], e['tid']) for e in events
             if e['ph'] == 'M' and e['name'] == 'thread_name'}
    samples = [e for e in events if e['ph'] == 'i']
    used = {(e['pid'], e['tid']) for e in samples}
    if not samples or not used <= named or len(named) != vcpus:
        sys.exit('perfetto: %d samples on tracks %s, named tracks %s, want %d VCPUs'
                 % (len(samples), sorted(used), sorted(named), vcpus))
    for e in samples:
        if e.get('sf') not in frames:
            sys.exit('perfetto: sample without its stack frame: %r' % e)
    ts = [e['ts'] for e in samples]
    if ts != sorted(ts):
        sys.exit('perfetto: samples not in time order')
    counters = sum(e['ph'] == 'C' for e in events)
    print('perfetto: %d samples on %d VCPU tracks, %d stack frames, %d counter events'
          % (len(samples), len(named), len(frames), counters))


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'fold':
        check_fold(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == 'perfetto':
        check_perfetto(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
