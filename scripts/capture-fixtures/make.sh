#!/usr/bin/env bash
# Remakes tests/captures/: small Vulkan compute programs (fixtures.c, one scenario a run)
# captured on lavapipe with GFXReconstruct's capture layer, and each scenario's verdict from the
# Khronos validation layer with synchronization validation, run separately (so that the
# capture holds the program's calls only).
#
# Needs (Debian 12): gcc, libvulkan-dev, glslang-tools, mesa-vulkan-drivers, gfxreconstruct
# (0.9.18) and vulkan-validationlayers (1.3.239). Writes, per scenario, NAME.gfxr and
# NAME.expect.json (what the program does, the layer's verdict, what gpusim must show).
#
# Usage: make.sh [SCENARIO...]   (default: every scenario; naming some remakes only those, so
# that adding a scenario leaves the committed captures of the others as they are)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/tests/captures"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

glslangValidator -V "$here/double.comp" --vn double_spv -o "$tmp/double.spv.h" >/dev/null
gcc -O1 -Wall -Werror -I"$tmp" -o "$tmp/fixtures" "$here/fixtures.c" -lvulkan

# Only lavapipe, so that a machine with a GPU makes the same captures.
export VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
scenarios=(barrier-missing barrier-correct host-upload-flush host-upload-noflush inline-data semaphore-missing semaphore-correct
  image-missing image-correct)
if [ "$#" -gt 0 ]; then scenarios=("$@"); fi
for s in "${scenarios[@]}"; do
  VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation \
    VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT \
    "$tmp/fixtures" "$s" >"$tmp/$s.validation.txt" 2>&1
  VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct \
    GFXRECON_CAPTURE_FILE="$out/$s.gfxr" GFXRECON_CAPTURE_FILE_TIMESTAMP=false GFXRECON_LOG_LEVEL=warning \
    "$tmp/fixtures" "$s" >/dev/null
done

python3 - "$tmp" "$out" "${scenarios[@]}" <<'PY'
import json, re, subprocess, sys
tmp, out, scenarios = sys.argv[1], sys.argv[2], sys.argv[3:]
layer = "VK_LAYER_KHRONOS_validation %s, synchronization validation" % subprocess.run(
    ["dpkg-query", "-W", "-f=${Version}", "vulkan-validationlayers"], capture_output=True, text=True).stdout
# What each program does and what gpusim must show. `expect.hazards` is the layer's verdict
# except where `note` says why gpusim's differs.
what = {
    "barrier-missing": "fill A; barrier; dispatch B = A*2; copy B -> C with no barrier between the dispatch and the copy",
    "barrier-correct": "barrier-missing with a COMPUTE_SHADER/SHADER_WRITE -> TRANSFER/TRANSFER_READ barrier before the copy",
    "host-upload-flush": "write A through mapped memory, vkFlushMappedMemoryRanges, dispatch B = A*2, barrier, copy B -> C",
    "host-upload-noflush": "host-upload-flush without the flush",
    "inline-data": "vkCmdUpdateBuffer A = 1..256, barrier, dispatch B = A*3 + 5 (push constant 3, specialization constant 5), barrier, copy B -> C",
    "semaphore-missing": "submit 1: fill A, barrier, dispatch B = A*2; submit 2: copy B -> C; nothing orders the two submissions' memory accesses",
    "semaphore-correct": "semaphore-missing with a semaphore submit 1 signals and submit 2 waits on at TRANSFER",
    "image-missing": "clear and copy an image: vkCmdPipelineBarrier2 transitions A (UNDEFINED -> GENERAL) and B (UNDEFINED -> TRANSFER_DST); clear A; blit A -> B with no barrier between the clear and the blit; image barrier B TRANSFER_DST -> TRANSFER_SRC; copy B -> buffer C",
    "image-correct": "image-missing with a GENERAL -> GENERAL image barrier on A (TRANSFER_WRITE -> TRANSFER_READ) between the clear and the blit",
}
notes = {
    "host-upload-noflush": "lavapipe's only memory type is HOST_COHERENT, so the program needs no flush: it is correct, and the capture cannot show a missing flush (that needs a device with non-coherent host-visible memory)",
    "host-upload-flush": "lavapipe's only memory type is HOST_COHERENT: the flush is allowed and does nothing",
    "semaphore-missing": "lavapipe has one queue, so both submissions go to it; this version of the layer reports nothing between the two submissions, while gpusim reports the read after write (submission order alone orders no memory accesses): gpusim's verdict is the one checked",
}
for s in scenarios:
    text = open(f"{tmp}/{s}.validation.txt").read()
    ids = sorted(set(re.findall(r"\[ (SYNC-HAZARD-[A-Z-]+) \]", text)))
    hazards = ["SYNC-HAZARD-READ-AFTER-WRITE"] if s == "semaphore-missing" else ids
    side = {
        "capture": f"{s}.gfxr",
        "program": f"scripts/capture-fixtures/fixtures.c {s}",
        "what": what[s],
        "validation": {"layer": layer, "sync_hazards": ids, "messages": len(re.findall(r"\[ SYNC-HAZARD-", text))},
        "expect": {"hazards": hazards, "corrupts_on_some_profile": bool(hazards)},
    }
    if s in notes:
        side["note"] = notes[s]
    with open(f"{out}/{s}.expect.json", "w") as f:
        json.dump(side, f, indent=2)
        f.write("\n")
PY
# What gfxrecon-convert decodes of two captures: the decoder's tests check their calls'
# parameters against it (the JSON leaves out pCode, pData and mapped-memory writes, which the
# importer reads from the file itself).
for s in barrier-missing inline-data image-missing; do
  [[ " ${scenarios[*]} " == *" $s "* ]] || continue
  gfxrecon-convert --output "$out/$s.convert.jsonl" "$out/$s.gfxr"
done
ls -l "$out"
