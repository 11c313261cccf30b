// Sum of 256 u32 per workgroup by tree reduction in workgroup memory.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> sums: array<u32>;

var<workgroup> partial: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    partial[li] = input[wid.x * 256u + li];
    workgroupBarrier();
    var stride = 128u;
    while stride > 0u {
        if li < stride {
            partial[li] = partial[li] + partial[li + stride];
        }
        workgroupBarrier();
        stride = stride / 2u;
    }
    if li == 0u {
        sums[wid.x] = partial[0];
    }
}
