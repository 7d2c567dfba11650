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

Callgrind's format (valgrind's docs, "Callgrind Format Specification"):
with `positions: instr line` a cost line is `ADDR LINE COST...`; an
address or a line may be written relative to the previous one (`+N`,
`-N`) or as `*` (the same); the line after a `calls=` line is the
inclusive cost of that call, which is not the caller's own.
"""

import sys
from collections import Counter, defaultdict


# The C library's copies and allocations: the batch's buffers of prepared
# rays (set-up, though not executed once a ray).
SETUP = ("memcpy", "memmove", "memset", "malloc", "_int_free", "cfree")

# Which table of names each kind of line names into.
TABLES = {"ob": "ob", "cob": "ob", "fn": "fn", "cfn": "fn"}
TABLES.update((k, "fl") for k in ("fl", "fi", "fe", "cfi", "cfl"))


def parse(path):
    """(events, {(object, function, address): [costs]}, {same key: source
    file})."""
    cost = defaultdict(lambda: None)
    source = {}
    events = []
    names = {"ob": {}, "fn": {}, "fl": {}}
    obj = fn = fl = None
    addr = 0
    after_call = False
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if not line:
                continue
            if line.startswith("events:"):
                events = line.split()[1:]
                continue
            if line[0].isalpha():
                # `fn=(N) name` the first time, `fn=(N)` after; a `cfn=`
                # (`cob=`) line may name N first, for `fn=` (`ob=`) too.
                # Files share one table: `fl=`, `fi=`, `fe=`, `cfi=`, `cfl=`.
                kind, eq, rest = line.partition("=")
                table = TABLES.get(kind)
                if eq and table:
                    key, _, name = rest.partition(")")
                    if name.strip():
                        names[table][key] = name.strip()
                    value = names[table].get(key, key)
                    if kind == "ob":
                        obj = value
                    elif kind == "fn":
                        fn = value
                    elif kind in ("fl", "fi", "fe"):
                        fl = value
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
            values = [int(v) for v in fields[2:]]
            key = (obj, fn, addr)
            source[key] = fl
            old = cost[key]
            if old is None:
                cost[key] = values + [0] * (len(events) - len(values))
            else:
                for i, v in enumerate(values):
                    old[i] += v
    return events, cost, source


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
