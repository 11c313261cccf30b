// Inclusive prefix sum of 256 i32 per workgroup (Hillis-Steele, double-buffered).
@group(0) @binding(0) var<storage, read_write> data: array<i32>;

var<workgroup> buf: array<array<i32, 256>, 2>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let base = wid.x * 256u;
    buf[0][li] = data[base + li];
    workgroupBarrier();
    var src = 0u;
    for (var offset = 1u; offset < 256u; offset = offset * 2u) {
        var v = buf[src][li];
        if li >= offset {
            v = v + buf[src][li - offset];
        }
        buf[1u - src][li] = v;
        src = 1u - src;
        workgroupBarrier();
    }
    data[base + li] = buf[src][li];
}
