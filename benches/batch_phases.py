#!/usr/bin/env python3
"""Splits a callgrind profile of `sylcol-bench count METHOD` into phases,
each with its instructions, D1 misses and mispredicted branches a ray.

    benches/batch_phases.py CALLGRIND_FILE RAYS [files]

The profile must be recorded with `--dump-instr=yes --cache-sim=yes
--branch-sim=yes` (one cost line per machine instruction with every
event), with `--toggle-collect` on the harness's `run_method`, as
`benches/embree.sh phases` does. Each instruction's own cost goes to one
phase:

- leaf: in a function whose name has `test_packet` (sylcol's leaf
  packet tests, `test_packets_avx` and `test_packet_avx`, out of line on
  AVX2; Embree inlines its triangle tests into the traversal, so it has
  none);
- set-up: executed exactly RAYS times, or RAYS / 8 times (once a packet
  of eight for `rtcIntersect8`), or in the C library's copies and
  allocations: the checks, the ray's frames, the first step of a walk,
  the finish, the harness's loop, the buffers of a streamed batch;
- walk: the rest (node steps, pops, stack, and for Embree its inlined
  triangle tests).

Prints one line a phase: `phase Ir D1miss mispredicted` per ray, then
the total. With `files`: the set-up's instructions a ray by the source
file each comes from (callgrind's line records: code inlined from the
standard library or glam counts for its own file, not its caller's).
(`benches/callgrind.py` reads the profile.)
"""

import sys
from collections import Counter

from callgrind import parse


# The C library's copies and allocations: the batch's buffers of prepared
# rays (set-up, though not executed once a ray).
SETUP = ("memcpy", "memmove", "memset", "malloc", "_int_free", "cfree")

def main():
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["files"]):
        sys.exit("usage: batch_phases.py CALLGRIND_FILE RAYS [files]")
    rays = int(sys.argv[2])
    events, cost, source = parse(sys.argv[1])
    col = {e: i for i, e in enumerate(events)}

    def pick(c, *names):
        return sum(c[col[n]] for n in names if n in col)

    phases = {p: [0, 0, 0] for p in ("set-up", "walk", "leaf")}
    files = Counter()
    for key, c in cost.items():
        fn = key[1]
        ir = pick(c, "Ir")
        name = fn or ""
        if "test_packet" in name:
            phase = "leaf"
        elif ir in (rays, rays // 8) or any(m in name for m in SETUP):
            phase = "set-up"
        else:
            phase = "walk"
        if phase == "set-up":
            files[(source[key] or "?").split("/src/")[-1]] += c[col["Ir"]]
        total = phases[phase]
        total[0] += ir
        total[1] += pick(c, "D1mr", "D1mw")
        total[2] += pick(c, "Bcm", "Bim")
    if sys.argv[3:] == ["files"]:
        for name, ir in files.most_common():
            print(f"{ir / rays:.1f} {name}")
        return
    sums = [sum(p[i] for p in phases.values()) for i in range(3)]
    for name, p in list(phases.items()) + [("total", sums)]:
        print(f"{name} {p[0] / rays:.0f} {p[1] / rays:.2f} {p[2] / rays:.2f}")


if __name__ == "__main__":
    main()
