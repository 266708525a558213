#!/usr/bin/python3
"""Runs "copy as PyTorch" snippets (tests/web/pytorch.test.mjs): for each NAME.py in the folder given,
execs it in a fresh namespace (its prints captured), reads the variable NAME.json names ("main") and
prints, one JSON line per snippet, the max abs difference from the trace's values ("expected"), and
from any further fields NAME.json lists under "also" ({variable: the trace's values})."""
import contextlib
import io
import json
import math
import os
import sys
import time
import traceback

try:
    import torch
except ImportError:
    print(json.dumps({"fatal": "python3 has no torch: install it (Debian/Ubuntu: apt-get install python3-torch)"}))
    sys.exit(0)

folder = sys.argv[1]
for name in sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".py")):
    with open(os.path.join(folder, name + ".json")) as f:
        want = json.load(f)
    with open(os.path.join(folder, name + ".py")) as f:
        source = f.read()
    result = {"name": name}
    out = io.StringIO()
    start = time.time()
    try:
        namespace = {"__name__": "__main__"}
        with contextlib.redirect_stdout(out):
            exec(compile(source, name + ".py", "exec"), namespace)
        got = namespace[want["main"]]
        expected = torch.tensor(want["expected"], dtype=torch.float64)
        got = torch.as_tensor(got, dtype=torch.float64).detach()
        result["shape"] = list(got.shape)
        if tuple(got.shape) != tuple(expected.shape):
            result["error"] = f"shape {tuple(got.shape)}, the trace's {tuple(expected.shape)}"
        else:
            d = (got - expected).abs().max().item() if got.numel() else 0.0
            for extra, value in (want.get("also") or {}).items():  # further trace fields the snippet leaves
                other = torch.as_tensor(namespace[extra], dtype=torch.float64).detach()
                value = torch.tensor(value, dtype=torch.float64)
                if tuple(other.shape) != tuple(value.shape):
                    raise ValueError(f"{extra}: shape {tuple(other.shape)}, the trace's {tuple(value.shape)}")
                d = max(d, (other - value).abs().max().item() if other.numel() else 0.0)
            result["max_abs_diff"] = d if math.isfinite(d) else str(d)
    except Exception:
        result["error"] = traceback.format_exc(limit=3)
    result["seconds"] = round(time.time() - start, 3)
    result["printed"] = out.getvalue()[:2000]
    print(json.dumps(result), flush=True)
