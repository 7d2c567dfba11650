"""Reads a callgrind profile recorded with `--dump-instr=yes`: each
machine instruction's own cost, for `benches/ray_phases.py` and
`benches/batch_phases.py`.

Callgrind's format (valgrind's docs, "Callgrind Format Specification"):
with `positions: instr line` a cost line is `ADDR LINE COST...`; an
address or a line may be written relative to the previous one (`+N`,
`-N`) or as `*` (the same); the line after a `calls=` line is the
inclusive cost of that call, which is not the caller's own.
"""

from collections import defaultdict


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
