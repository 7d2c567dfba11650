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

Callgrind's format (valgrind's docs, "Callgrind Format Specification"):
with `positions: instr line` a cost line is `ADDR LINE COST`; an address
or a line may be written relative to the previous one (`+N`, `-N`, decimal)
or as `*` (the same); the line after a `calls=` line is the inclusive cost
of that call, which is not the caller's own.
"""

import sys
from collections import Counter


def own_costs(path):
    """Instructions executed, per (object, address): each instruction's own
    cost. Addresses are offsets in their object (the program or a shared
    library), so they repeat across objects."""
    cost = Counter()
    addr = 0
    obj = None
    names = {}
    after_call = False
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if not line:
                continue
            if line[0].isalpha():
                if line.startswith("ob="):
                    # `ob=(N) name` the first time, `ob=(N)` after.
                    key, _, name = line[3:].partition(")")
                    obj = names.setdefault(key, name.strip() or key)
                after_call = line.startswith("calls=")
                continue
            fields = line.split()
            a = fields[0]
            if a.startswith("0x"):
                addr = int(a, 16)
            elif a[0] == "+":
                addr += int(a[1:])
            elif a[0] == "-":
                addr -= int(a[1:])
            elif a != "*":
                continue
            if after_call:
                after_call = False
                continue
            if len(fields) >= 3:
                cost[obj, addr] += int(fields[-1])
    return cost


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
