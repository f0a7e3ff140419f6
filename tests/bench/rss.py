#!/usr/bin/env python3
"""Compares two /proc/PID/smaps copies mapping by mapping (tests/bench/RSS.md).

    rss.py LIB_SMAPS FLOOR_SMAPS

Groups each file's mappings by what they map (a file's basename, [heap],
[stack], or "anon" for nameless ones, split by size: thread stacks are the
8 MiB + 4 KiB ones) and prints Rss and its private/shared split in KiB, the
library client's beside the floor client's, largest difference first, and
the library client's Referenced: what its loop touched (procmem.h clears
the referenced bits before the loop; the rest of Rss is fault-around)."""
import os
import re
import sys

HEAD = re.compile(r'^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$')


def load(path):
    groups = {}
    cur = None
    with open(path) as f:
        for line in f:
            m = HEAD.match(line)
            if m:
                size = (int(m.group(2), 16) - int(m.group(1), 16)) // 1024
                name = m.group(3).strip()
                if not name:
                    name = 'anon (thread stack?)' if size in (8196, 8192, 8200) \
                        else 'anon %s' % ('>=1M' if size >= 1024 else '<1M')
                elif name.startswith('/'):
                    name = os.path.basename(name)
                cur = groups.setdefault(name, {'Rss': 0, 'Private_Dirty': 0,
                                               'Private_Clean': 0,
                                               'Shared_Clean': 0, 'Referenced': 0,
                                               'Size': 0,
                                               'maps': 0})
                cur['Size'] += size
                cur['maps'] += 1
                continue
            k, _, v = line.partition(':')
            if cur is not None and k in cur and v.strip().endswith('kB'):
                cur[k] += int(v.split()[0])
    return groups


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    names = sorted(set(a) | set(b),
                   key=lambda n: -abs(a.get(n, {}).get('Rss', 0) -
                                      b.get(n, {}).get('Rss', 0)))
    z = {'Rss': 0, 'Private_Dirty': 0, 'Private_Clean': 0, 'Shared_Clean': 0,
         'Referenced': 0}
    print('%-34s %8s %8s %8s %8s   %s' % ('mapping', 'lib Rss', 'floor', 'diff',
                                           'lib ref', 'lib dirty/clean/shared | floor'))
    tot = [0, 0]
    for n in names:
        x, y = a.get(n, z), b.get(n, z)
        tot[0] += x['Rss']
        tot[1] += y['Rss']
        if not x['Rss'] and not y['Rss']:
            continue
        print('%-34s %8d %8d %+8d %8d   %d/%d/%d | %d/%d/%d' % (
            n[:34], x['Rss'], y['Rss'], x['Rss'] - y['Rss'], x['Referenced'],
            x['Private_Dirty'], x['Private_Clean'], x['Shared_Clean'],
            y['Private_Dirty'], y['Private_Clean'], y['Shared_Clean']))
    print('%-34s %8d %8d %+8d' % ('total', tot[0], tot[1], tot[0] - tot[1]))


if __name__ == '__main__':
    main()
