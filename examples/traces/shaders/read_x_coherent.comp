#version 450
// read_x_coherent: reads X into Out. X is declared coherent: each access is made at the device's coherence point.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) coherent buffer X { uint x[]; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = x[i];
}
