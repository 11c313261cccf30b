#!/usr/bin/env bash
# Replays every example trace and the hardware probes (examples/hardware/) on this machine's
# Vulkan device and writes one JSON report per trace into OUT (default ./replay-results):
#   scripts/replay-on-device.sh [OUT] [ITERATIONS]
# GPUSIM (default target/release/gpusim) is the binary. Set GPUSIM_VULKAN_LOADER and
# VK_LAYER_PATH when the machine has a driver but no loader or layer installed.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-replay-results}"
ITERATIONS="${2:-100}"
GPUSIM="${GPUSIM:-target/release/gpusim}"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
mkdir -p "$OUT"
for t in examples/traces/*.json examples/hardware/*.json; do
  case "$t" in *.expect.json) continue ;; esac
  n="$(basename "$t" .json)"
  "$GPUSIM" replay "$t" --iterations "$ITERATIONS" --report json > "$OUT/$n.json" 2> "$OUT/$n.err"
  echo "$n: exit $? $(head -c 300 "$OUT/$n.err")"
done
# The layer on this device, for the examples whose hazards it sees.
for n in two-queues-missing dispatch-then-copy-missing; do
  "$GPUSIM" replay "examples/traces/$n.json" --validate --report json > "$OUT/$n.validate.json" 2> "$OUT/$n.validate.err"
  echo "$n --validate: exit $?"
done
