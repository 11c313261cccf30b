#version 450
// b[i] = a[i] * mul + ADD: reads binding 0, writes binding 1, with a push constant and a
// specialization constant so that the importer's inline data is exercised. (B is not declared
// writeonly: naga, which gpusim loads SPIR-V with, refuses write-only storage buffers.)
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint ADD = 0u;
layout(push_constant) uniform Push { uint mul; } pc;
layout(set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer B { uint b[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    b[i] = a[i] * pc.mul + ADD;
}
