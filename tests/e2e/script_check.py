#!/usr/bin/env python3
"""Checks `vertigo script` and `vertigo export --format perfetto` output.

  script_check.py fold SCRIPT_TXT FOLDED_TXT
      Folds perf-script text the way FlameGraph's stackcollapse-perf.pl
      does with --kernel (header line "COMM PID [CPU] TIME: PERIOD EVENT:",
      frame lines "ADDR FUNC+0xOFF (DSO)" leaf first, a blank line ends a
      sample; the "+0xOFF" is stripped; "[unknown]" becomes the DSO's last
      path component in brackets unless the DSO is "[unknown]"; ';' in a
      name becomes ':', quotes go, and so does everything from the first
      '(' unless the name looks like a Go method; "_[k]" for a kernel
      image: its name starts with "[" or ends in vmlinux, and is not
      unknown; "_[i]" for an "(inlined)" frame, which stackcollapse-perf.pl
      only makes with --inline; "_[h]" for a frame of Vertigo's (script
      marks it "[h]" after its DSO; stackcollapse-perf.pl reads past it and
      leaves it unmarked); each sample counts its PERIOD, as the
      current stackcollapse-perf.pl weighs it), requires every frame of a
      known function to carry its offset, the times to never go back, one
      period, and per stack the folded file's count (`vertigo export
      --format folded`, one event: samples) times that period.
  script_check.py perfetto JSON VCPUS [COUNTER_REGEX]
      Loads the Trace Event JSON; every event has name, ph, ts, pid, tid
      of their types, instant events their scope, counter events ("C")
      numeric args; samples are "i" events whose "sf" names a stack frame;
      exactly VCPUS VCPU tracks (thread_name metadata) carry the samples;
      with COUNTER_REGEX, every VCPU has a counter track "VCPU V NAME" with
      NAME matching it and a value above 0.
  script_check.py overlay TIMELINE_JSON PERFETTO_JSON SCRIPT_TXT
      The three time-ordered outputs of one log line up: the timeline's
      process and thread names and numbers are the Perfetto export's;
      every counter value of the timeline (`vertigo timeline --format
      json`, track NAME or "VCPU V NAME") is the Perfetto export's counter
      "VCPU V NAME" on the same track at the same time (microseconds, to
      the nanosecond); `vertigo script`'s sample times (seconds, truncated
      to the microsecond) are the Perfetto export's samples' in order.
Prints what it found; exits 1 on a mismatch."""
import collections
import json
import re
import sys

HEADER = re.compile(r'^(\S.+?)\s+(\d+)\s+\[(\d+)\]\s+(\d+\.\d+):\s+(\d+)\s+(\S+):\s*$')
FRAME = re.compile(r'^\s+([0-9a-f]+)\s+(.+) \((\S*)\)( \[h\])?$')
OFFSET = re.compile(r'\+0x[0-9a-f]+$')


def frame_name(raw, dso, hypervisor=False):
    if dso != 'inlined' and raw != '[unknown]' and not OFFSET.search(raw):
        sys.exit('script: a frame without its +0xOFFSET: %r (%s)' % (raw, dso))
    func = OFFSET.sub('', raw)
    if func == '[unknown]' and dso != '[unknown]':
        func = '[%s]' % dso.rsplit('/', 1)[-1]
    func = func.replace(';', ':')
    if not re.search(r'\.\(.*\)\.', func):
        func = re.sub(r'\((?!anonymous namespace\)).*', '', func)
    func = func.replace('"', '').replace("'", '')
    if dso == 'inlined':
        return func + '_[i]'
    if hypervisor:
        return func + '_[h]'
    if re.search(r'(^\[|vmlinux$)', dso) and 'unknown' not in dso:
        return func + '_[k]'
    return func


def fold_script(path):
    stacks, periods = collections.Counter(), set()
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
            period = int(m.group(5))
            periods.add(period)
            samples += 1
            continue
        m = FRAME.match(line)
        if m and comm is not None:
            frames.append(frame_name(m.group(2), m.group(3), m.group(4) is not None))
            continue
        if line == '' and comm is not None:
            stacks[';'.join([comm] + frames[::-1])] += period
            comm = None
            continue
        sys.exit('script: unexpected line %r' % line)
    return stacks, samples, periods


def read_folded(path):
    stacks = collections.Counter()
    for line in open(path, encoding='utf-8', errors='replace'):
        stack, _, count = line.rstrip('\n').rpartition(' ')
        stacks[stack] += int(count)
    return stacks


def check_fold(script_path, folded_path):
    got, samples, periods = fold_script(script_path)
    if not samples or len(periods) != 1:
        sys.exit('script: %d samples, periods %s: want samples of one period' % (samples, sorted(periods)))
    period = periods.pop()
    want = collections.Counter({k: v * period for k, v in read_folded(folded_path).items()})
    if got != want:
        diff = sorted(set(got.items()) ^ set(want.items()))[:10]
        sys.exit('script and folded differ (%d vs %d stacks): %s' % (len(got), len(want), diff))
    print('script: %d samples in time order, %d stacks, each folded count x period %d'
          % (samples, len(got), period))


KNOWN_PHASES = {'M', 'i', 'C'}


def check_fields(events):
    """The Trace Event format's fields: every event has name, ph, ts, pid
    and tid of their types; an instant event a scope; a counter event
    ("C") args of numbers, one series each."""
    for e in events:
        missing = [k for k in ('name', 'ph', 'ts', 'pid', 'tid') if k not in e]
        if missing:
            sys.exit('perfetto: event without %s: %r' % (missing, e))
        if (not isinstance(e['name'], str) or e['ph'] not in KNOWN_PHASES
                or not isinstance(e['ts'], (int, float))
                or not all(isinstance(e[k], int) for k in ('pid', 'tid'))):
            sys.exit('perfetto: event with a bad field: %r' % e)
        if e['ph'] == 'i' and e.get('s') not in ('g', 'p', 't'):
            sys.exit('perfetto: instant event without its scope: %r' % e)
        args = e.get('args')
        if e['ph'] == 'C' and (not isinstance(args, dict) or not args or
                               not all(isinstance(v, (int, float)) for v in args.values())):
            sys.exit('perfetto: counter event without numeric args: %r' % e)


def check_counters(events, tracks, counter_re):
    """Every VCPU track has a counter track named after it ("VCPU V
    NAME", NAME matching counter_re) with a value above 0; returns the
    counter tracks found."""
    series = collections.defaultdict(list)
    for e in events:
        if e['ph'] == 'C':
            series[(e['pid'], e['name'])].append(e['args']['value'])
    for pid, tid in sorted(tracks):
        # (a domain D's process is D + 1, its VCPU V's thread (D + 1) x 65536 + V)
        vcpu = tid % 65536
        mine = [(name, max(v)) for (p, name), v in series.items() if p == pid and
                re.fullmatch(r'VCPU %d (%s)' % (vcpu, counter_re), name)]
        if not mine or not any(top > 0 for _, top in mine):
            sys.exit('perfetto: VCPU %d of domain %d has no counter track /%s/ above 0 (tracks: %s)'
                     % (vcpu, pid - 1, counter_re, sorted(n for _, n in series)[:20]))
    return {k: v for k, v in series.items() if re.search(counter_re, k[1])}


def check_perfetto(path, vcpus, counter_re=None):
    trace = json.load(open(path, encoding='utf-8'))
    events, frames = trace['traceEvents'], trace['stackFrames']
    check_fields(events)
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
    found = ''
    if counter_re:
        tracks = check_counters(events, named, counter_re)
        found = ', counter tracks %s (highest %s)' % (
            ' '.join(sorted(name for _, name in tracks)),
            ' '.join(str(max(v)) for _, v in sorted(tracks.items())))
    print('perfetto: %d samples on %d VCPU tracks, %d stack frames, %d counter events%s'
          % (len(samples), len(named), len(frames), counters, found))


def names_of(events):
    return {(e['pid'], e['tid'], e['name'], e['args']['name']) for e in events if e['ph'] == 'M'}


def counter_points(events, vcpu_prefix):
    """{(pid, tid, 'VCPU V NAME', ts in ns): value} of the counter events."""
    points = {}
    for e in events:
        if e['ph'] != 'C':
            continue
        name = e['name']
        if vcpu_prefix and not name.startswith('VCPU '):
            name = 'VCPU %d %s' % (e['tid'] % 65536, name)
        points[(e['pid'], e['tid'], name, round(e['ts'] * 1000))] = e['args']['value']
    return points


def check_overlay(timeline_path, perfetto_path, script_path):
    timeline = json.load(open(timeline_path, encoding='utf-8'))['traceEvents']
    perfetto = json.load(open(perfetto_path, encoding='utf-8'))['traceEvents']
    if not names_of(timeline) or not names_of(timeline) <= names_of(perfetto):
        sys.exit('overlay: the timeline names tracks the Perfetto export does not: %s'
                 % sorted(names_of(timeline) - names_of(perfetto))[:4])
    rows, marks = counter_points(timeline, True), counter_points(perfetto, False)
    missing = [(k, v) for k, v in rows.items() if marks.get(k) != v]
    if not rows or missing:
        sys.exit('overlay: %d of %d timeline counter values not in the Perfetto export at their '
                 'time: %s' % (len(missing), len(rows), missing[:3]))
    times = [float(m.group(4)) for m in map(HEADER.match, open(script_path, encoding='utf-8',
                                                               errors='replace')) if m]
    samples = [e['ts'] for e in perfetto if e['ph'] == 'i']
    off = [(a, b) for a, b in zip(times, samples) if int(b) != round(a * 1e6)]
    if not times or len(times) != len(samples) or off:
        sys.exit('overlay: script has %d sample times, the Perfetto export %d; first apart: %s'
                 % (len(times), len(samples), off[:3]))
    print('overlay: %d process/thread names, %d counter values and %d sample times line up'
          % (len(names_of(timeline)), len(rows), len(times)))


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'fold':
        check_fold(sys.argv[2], sys.argv[3])
    elif len(sys.argv) in (4, 5) and sys.argv[1] == 'perfetto':
        check_perfetto(sys.argv[2], int(sys.argv[3]), sys.argv[4] if len(sys.argv) == 5 else None)
    elif len(sys.argv) == 5 and sys.argv[1] == 'overlay':
        check_overlay(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
