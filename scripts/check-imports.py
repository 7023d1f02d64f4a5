#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The modules of utrace_rs.ko live in one folder per layer (see the crate
root's docs, rust/utrace_main.rs): a module imports only from its own folder
and the folders of the layers before it, and the modules import each other
without a cycle. Reads the `crate::<module>` paths of each file (comments
excluded), prints each folder's modules in import order (or the cycle, or
the import that goes up a layer) and exits non-zero on either."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent / "rust"
# The layers in order; "shim" is rust/shim.rs with its wrappers in rust/shim/.
FOLDERS = ["base", "shim", "objects", "containers", "reporting", "edges"]

folder_of = {"shim": "shim"}
files = {"shim": [root / "shim.rs"] + sorted((root / "shim").glob("*.rs"))}
for folder in FOLDERS:
    if folder == "shim":
        continue
    for p in sorted((root / folder).glob("*.rs")):
        folder_of[p.stem] = folder
        files[p.stem] = [p]
strays = sorted(p.name for p in root.glob("*.rs") if p.stem not in ("utrace_main", "shim"))
if strays:
    print("check-imports: modules outside the layer folders: " + " ".join(strays))
    sys.exit(1)

deps = {}
for m, paths in sorted(files.items()):
    code = "\n".join(
        line
        for p in paths
        for line in p.read_text().splitlines()
        if not line.lstrip().startswith("//")
    )
    deps[m] = sorted({d for d in re.findall(r"crate::([a-z_]+)", code) if d in files and d != m})

bad = 0
for m in sorted(deps):
    for d in deps[m]:
        if FOLDERS.index(folder_of[d]) > FOLDERS.index(folder_of[m]):
            print(f"check-imports: {folder_of[m]}/{m} imports {folder_of[d]}/{d}, a later layer")
            bad = 1

# Order by longest path down; a cycle shows up as a module never placed.
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
for folder in FOLDERS:
    mods = sorted((m for m in layer if folder_of[m] == folder), key=lambda m: (layer[m], m))
    print(f"check-imports: {folder}/: " + " ".join(mods))
sys.exit(bad)
