"""Alternates the pre-move and post-move builds of movebench (issue 34's
speed check): RUNS runs each, every figure the fastest; prints the table."""
import os, subprocess, sys, collections
RUNS = int(os.environ.get("RUNS", "3"))
bins = {"pre": os.environ.get("PRE", "target/move34/pre-target/release/movebench"), "post": os.environ.get("POST", "target/move34/post-target/release/movebench")}
env = dict(os.environ, RAYON_NUM_THREADS="1", ROUNDS=os.environ.get("ROUNDS", "3"))
best = collections.defaultdict(lambda: float("inf"))
checks = {}
order = []
for i in range(RUNS):
    for tag in (["pre", "post"] if i % 2 == 0 else ["post", "pre"]):
        out = subprocess.run([bins[tag], os.environ.get("MAPS", "target/move34/maps")], capture_output=True, text=True, env=env, check=True).stdout
        for line in out.splitlines():
            scene, kind, ns, check = line.split("\t")
            key = (scene, kind)
            if key not in order:
                order.append(key)
            best[(tag,) + key] = min(best[(tag,) + key], float(ns))
            checks.setdefault(key, {})[tag] = check
    print(f"run {i + 1} done", file=sys.stderr)
print("| scene | query | before (1eb508f) ns | after (9f1d099) ns | after / before | same answers |")
print("|---|---|---|---|---|---|")
ratios = []
for scene, kind in order:
    a, b = best[("pre", scene, kind)], best[("post", scene, kind)]
    c = checks[(scene, kind)]
    ratios.append(b / a)
    print(f"| {scene} | {kind} | {a:.1f} | {b:.1f} | {b / a:.3f} | {'yes' if c['pre'] == c['post'] else 'NO ' + str(c)} |")
import math
print(f"\ngeometric mean after/before {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}, range {min(ratios):.3f}-{max(ratios):.3f}")
