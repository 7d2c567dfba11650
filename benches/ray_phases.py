#!/usr/bin/env python3
"""Splits a callgrind profile of `sylcol-bench count METHOD` into the
instructions executed once for every ray and the rest.

    benches/ray_phases.py CALLGRIND_FILE RAYS

The profile must be recorded with `--dump-instr=yes` (one cost line per
machine instruction; with `--toggle-collect` on the harness's
`run_method`, as `benches/embree.sh count` does). Every instruction whose
execution count is exactly RAYS is counted as "once a ray": the checks,
the set-up of the ray's frames, the first step of a walk, the finish and
the harness's loop. The rest runs as often as the ray needs: the walk's
steps, node and packet tests, pops, the hit record of the rays that hit.
Prints one line: total, once-a-ray and the rest, per ray.
(`benches/callgrind.py` reads the profile.)
"""

import sys
from collections import Counter

from callgrind import parse


def own_costs(path):
    """Instructions executed, per (object, address): each instruction's own
    cost. Addresses are offsets in their object (the program or a shared
    library), so they repeat across objects."""
    events, cost, _ = parse(path)
    ir = events.index("Ir")
    out = Counter()
    for (obj, _fn, addr), c in cost.items():
        out[obj, addr] += c[ir]
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: ray_phases.py CALLGRIND_FILE RAYS")
    rays = int(sys.argv[2])
    cost = own_costs(sys.argv[1])
    total = sum(cost.values())
    once = sum(c for c in cost.values() if c == rays)
    print(f"{total / rays:.0f} {once / rays:.0f} {(total - once) / rays:.0f}")


if __name__ == "__main__":
    main()
