#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The modules of utrace_rs.ko (rust/*.rs) must import each other without a
cycle: lower layers never import higher ones (see the crate root's docs).
Reads the `crate::<module>` paths of each file (comments excluded), prints
the layers it finds, or the cycle, and exits non-zero on a cycle."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent / "rust"
mods = {p.stem for p in root.glob("*.rs")} - {"utrace_main"}
deps = {}
for m in sorted(mods):
    text = (root / f"{m}.rs").read_text()
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    deps[m] = sorted({d for d in re.findall(r"crate::([a-z_]+)", code) if d in mods and d != m})

# Layers by longest path down; a cycle shows up as a module never placed.
layer = {}
while len(layer) < len(deps):
    placed = [m for m in deps if m not in layer and all(d in layer for d in deps[m])]
    if not placed:
        left = sorted(m for m in deps if m not in layer)
        # Walk from one of them to find the cycle itself.
        path, m = [], left[0]
        while m not in path:
            path.append(m)
            m = next(d for d in deps[m] if d not in layer)
        cycle = path[path.index(m):] + [m]
        print("check-imports: import cycle: " + " -> ".join(cycle))
        sys.exit(1)
    for m in placed:
        layer[m] = 1 + max((layer[d] for d in deps[m]), default=-1)
for n in range(max(layer.values()) + 1):
    print(f"check-imports: layer {n}: " + " ".join(sorted(m for m in layer if layer[m] == n)))
