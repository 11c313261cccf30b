// C = A * B for n x n row-major f32 matrices, in 16x16 tiles staged through workgroup memory.
const TILE: u32 = 16u;

struct Dims {
    n: u32,
}
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

var<workgroup> tile_a: array<array<f32, 16>, 16>;
var<workgroup> tile_b: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let n = dims.n;
    let row = gid.y;
    let col = gid.x;
    var acc = 0.0;
    for (var t = 0u; t < n / TILE; t++) {
        tile_a[lid.y][lid.x] = a[row * n + t * TILE + lid.x];
        tile_b[lid.y][lid.x] = b[(t * TILE + lid.y) * n + col];
        workgroupBarrier();
        for (var k = 0u; k < TILE; k++) {
            acc = fma(tile_a[lid.y][k], tile_b[k][lid.x], acc);
        }
        workgroupBarrier();
    }
    c[row * n + col] = acc;
}
