// 16-bin histogram of bytes' high nibbles: private counts per workgroup with workgroup
// atomics, merged into the storage histogram with storage atomics.
@group(0) @binding(0) var<storage, read> values: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>, 16>;

var<workgroup> local_bins: array<atomic<u32>, 16>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let i = gid.x;
    if i < arrayLength(&values) {
        let bin = (values[i] >> 4u) & 15u;
        atomicAdd(&local_bins[bin], 1u);
    }
    workgroupBarrier();
    if li < 16u {
        let count = atomicLoad(&local_bins[li]);
        if count > 0u {
            atomicAdd(&bins[li], count);
        }
    }
}
