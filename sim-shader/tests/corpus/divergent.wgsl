// Divergent control flow: nested if and loops with break and continue, a switch, a helper
// function with an early return and a pointer argument, and lanes exiting early.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

fn collatz_steps(n: u32, limit: u32, steps: ptr<function, u32>) -> bool {
    var x = n;
    for (var i = 0u; i < limit; i++) {
        if x == 1u {
            return true;
        }
        if (x & 1u) == 0u {
            x = x / 2u;
            *steps += 1u;
            continue;
        }
        x = 3u * x + 1u;
        *steps += 1u;
    }
    return false;
}

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = input[i];
    if v % 7u == 3u {
        // Early exit for some lanes.
        output[i] = 0xdeadu;
        return;
    }
    var acc = 0u;
    var j = 0u;
    loop {
        if j >= v % 13u {
            break;
        }
        j += 1u;
        if (j & 1u) == 1u {
            continue;
        }
        var k = 0u;
        while true {
            k += 1u;
            if k > j {
                break;
            }
            if ((k + v) % 3u) == 0u {
                continue;
            }
            acc += k * j;
        }
    }
    switch v % 4u {
        case 0u: {
            acc += 1000u;
        }
        case 1u, 2u: {
            acc = acc * 2u;
        }
        default: {
            acc = acc ^ 0x55u;
        }
    }
    var steps = 0u;
    if collatz_steps(v % 50u + 1u, 20u, &steps) {
        acc += steps << 16u;
    } else {
        acc += 0x1000000u;
    }
    output[i] = acc;
}
