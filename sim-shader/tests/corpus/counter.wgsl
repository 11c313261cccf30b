// A counter taken with compare-exchange: each invocation claims a unique ticket. A lane only
// retries when another lane's exchange succeeded, so the loop always makes progress.
@group(0) @binding(0) var<storage, read_write> counter: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> owner: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var expected = atomicLoad(&counter);
    loop {
        let r = atomicCompareExchangeWeak(&counter, expected, expected + 1u);
        if r.exchanged {
            owner[expected] = gid.x;
            break;
        }
        expected = r.old_value;
    }
}
