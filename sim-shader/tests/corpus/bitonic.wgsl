// One compare-and-swap step (k, j) of a bitonic sort over u32 keys; push constants select it.
struct Step {
    k: u32,
    j: u32,
}
var<immediate> step: Step;
@group(0) @binding(0) var<storage, read_write> keys: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let partner = i ^ step.j;
    if partner > i {
        let ascending = (i & step.k) == 0u;
        let x = keys[i];
        let y = keys[partner];
        if (x > y) == ascending {
            keys[i] = y;
            keys[partner] = x;
        }
    }
}
