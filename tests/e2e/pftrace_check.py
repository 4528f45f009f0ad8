#!/usr/bin/env python3
"""Checks `vertigo export --format pftrace` against its schema and the
folded export.

  pftrace_check.py DECODED_TXT FOLDED_TXT
      DECODED_TXT is `protoc --decode vertigo.pftrace.Trace` of the trace
      (tests/fixtures/perfetto/vertigo_trace.proto): protoc parsed every
      byte by the schema. Checks what Perfetto's importer needs: one
      sequence whose first interned packet clears the incremental state,
      every iid a sample or frame refers to interned before (callstacks,
      frames, mappings, function names, mapping paths), timestamps that
      never go back, a process per domain and a thread per VCPU the
      samples name; then rebuilds every sample's stack (root first:
      process name, then functions) and checks that they add up to the
      folded export's lines, one event (its "_[k]", "_[h]", "_[i]" marks
      dropped: Perfetto's frames carry their image instead).
Prints what it found; exits 1 on a mismatch."""
import collections
import re
import sys


def parse(path):
    """protoc's text format into nested lists of (name, value) pairs."""
    root, stack = [], []
    cur = root
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.strip()
        if not line:
            continue
        if line.endswith('{'):
            node = []
            cur.append((line[:-1].strip(), node))
            stack.append(cur)
            cur = node
        elif line == '}':
            cur = stack.pop()
        else:
            name, _, value = line.partition(':')
            value = value.strip()
            if value.startswith('"'):
                value = bytes(value[1:-1], 'utf-8').decode('unicode_escape').encode('latin-1').decode('utf-8', 'replace')
            cur.append((name.strip(), value))
    return root


def field(node, name, default=None):
    for k, v in node:
        if k == name:
            return v
    return default


def fields(node, name):
    return [v for k, v in node if k == name]


def fail(msg):
    sys.exit('pftrace: ' + msg)


def main(decoded, folded_path):
    packets = fields(parse(decoded), 'packet')
    names, frames, stacks, mappings, paths = {}, {}, {}, set(), set()
    procs, threads, samples = set(), set(), collections.Counter()
    cleared, last_ts, interned_seen = False, -1, False
    for p in packets:
        tree = field(p, 'process_tree')
        if tree is not None:
            procs |= {int(field(x, 'pid')) for x in fields(tree, 'processes')}
            threads |= {(int(field(x, 'tgid')), int(field(x, 'tid'))) for x in fields(tree, 'threads')}
            continue
        seq, flags = field(p, 'trusted_packet_sequence_id'), int(field(p, 'sequence_flags', 0))
        if seq != '1':
            fail('packet outside sequence 1: %r' % p)
        data = field(p, 'interned_data')
        if data is not None:
            if not flags & 1:
                fail('interned data without SEQ_INCREMENTAL_STATE_CLEARED')
            cleared = interned_seen = True
            for s in fields(data, 'function_names'):
                names[int(field(s, 'iid'))] = field(s, 'str')
            for s in fields(data, 'mapping_paths'):
                paths.add(int(field(s, 'iid')))
            for m in fields(data, 'mappings'):
                for pid in fields(m, 'path_string_ids'):
                    if int(pid) not in paths:
                        fail('mapping %s names path %s, not interned' % (field(m, 'iid'), pid))
                mappings.add(int(field(m, 'iid')))
            for f in fields(data, 'frames'):
                fn, mp = int(field(f, 'function_name_id')), int(field(f, 'mapping_id'))
                if fn not in names or mp not in mappings or field(f, 'rel_pc') is None:
                    fail('frame %s: function %d or mapping %d not interned, or no rel_pc' %
                         (field(f, 'iid'), fn, mp))
                frames[int(field(f, 'iid'))] = names[fn]
            for c in fields(data, 'callstacks'):
                ids = [int(x) for x in fields(c, 'frame_ids')]
                if not ids or any(i not in frames for i in ids):
                    fail('callstack %s: empty or naming frames not interned' % field(c, 'iid'))
                stacks[int(field(c, 'iid'))] = ';'.join(frames[i] for i in ids)
        sample = field(p, 'perf_sample')
        if sample is None:
            continue
        if not cleared or not flags & 2:
            fail('a sample before the interned state, or without SEQ_NEEDS_INCREMENTAL_STATE')
        ts = int(field(p, 'timestamp'))
        if ts < last_ts:
            fail('time goes back at %d' % ts)
        last_ts = ts
        pid, tid = int(field(sample, 'pid')), int(field(sample, 'tid'))
        if pid not in procs or (pid, tid) not in threads:
            fail('sample of process %d thread %d, which the process tree does not name' % (pid, tid))
        cs = int(field(sample, 'callstack_iid'))
        if cs not in stacks:
            fail('sample names callstack %d, not interned' % cs)
        samples[stacks[cs]] += 1
    if not interned_seen or not samples:
        fail('no interned data or no sample')
    want = collections.Counter()
    for line in open(folded_path, encoding='utf-8', errors='replace'):
        stack, _, count = line.rstrip('\n').rpartition(' ')
        want[re.sub(r'_\[[khi]\](?=;|$)', '', stack)] += int(count)
    if samples != want:
        diff = list((samples - want).items())[:3] + list((want - samples).items())[:3]
        fail('stacks differ from the folded export (%d vs %d samples): %r' %
             (sum(samples.values()), sum(want.values()), diff))
    print('pftrace: %d samples in %d stacks, %d frames, %d mappings, %d processes, %d threads: '
          'the folded export\'s stacks' % (sum(samples.values()), len(samples), len(frames),
                                           len(mappings), len(procs), len(threads)))


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
