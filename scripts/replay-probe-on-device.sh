#!/usr/bin/env bash
# Replays every trace of DIR (default tests/corpus/h100-probe/; tests/corpus/h100-probe/races/
# holds the races) on this machine's Vulkan device, ITERATIONS times each (default 200), and
# writes OUT/reports/NAME.json and OUT/summary.json (per trace: iterations, iterations that
# differ from the reference run, the device):
#   scripts/replay-probe-on-device.sh [OUT] [ITERATIONS] [DIR]
# GPUSIM (default target/release/gpusim) is the binary. Set GPUSIM_VULKAN_LOADER (and, on a
# machine with no display, VK_ICD_FILENAMES naming a manifest for libEGL_nvidia.so.0) as in
# docs/REPLAY_NVIDIA.md.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-probe-results}"
ITERATIONS="${2:-200}"
DIR="${3:-tests/corpus/h100-probe}"
GPUSIM="${GPUSIM:-target/release/gpusim}"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
mkdir -p "$OUT/reports"
for t in "$DIR"/*.json; do
  case "$t" in *.expect.json) continue ;; esac
  n="$(basename "$t" .json)"
  "$GPUSIM" replay "$t" --iterations "$ITERATIONS" --report json > "$OUT/reports/$n.json" 2> "$OUT/reports/$n.err"
  echo "$n: exit $?"
done
python3 - "$OUT" <<'PY' > "$OUT/summary.json"
import glob, json, os, sys
out = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "reports", "*.json"))):
    r = json.load(open(f))
    out[os.path.basename(f)[:-5]] = {"iterations": r["iterations"], "iterations_with_corruption": r["iterations_with_corruption"], "device": r["replay"]["device"], "notes": r.get("notes")}
print(json.dumps(out, indent=1))
PY
