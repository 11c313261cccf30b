//! The compact, naga-free form a compute entry point is compiled into: a flat list of [`Op`]s
//! over a register file, plus the reflection the engine needs. Built once by `compile.rs`,
//! shared read-only (it is `Send + Sync`) by every workgroup that runs it.

/// Index of the first component of a value in the register file. A value of `n` components
/// occupies registers `r .. r + n`; each register holds one 32-bit word per lane.
pub(crate) type Reg = u32;

/// "No register" marker for optional operands (e.g. no dynamic offset).
pub(crate) const NO_REG: Reg = u32::MAX;

/// Mask slot 0 always holds zero, so "subtract nothing" is slot 0.
pub(crate) const ZERO_MASK: u32 = 0;

/// Root size meaning "the byte size of the bound buffer range", for storage and uniform
/// buffers whose size is only known at dispatch.
pub(crate) const BOUND_SIZE: u32 = u32::MAX;

/// How the 32 bits of a register are interpreted by an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    F32,
    I32,
    U32,
    Bool,
}

/// Where a memory operation goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Space {
    /// Per-lane memory holding function and private variables (never yields).
    Lane,
    /// The workgroup's shared memory (never yields).
    WorkGroup,
    /// Push-constant (immediate) bytes given at dispatch (never yields).
    Push,
    /// A uniform or storage buffer: index into [`Program::bindings`]. Yields to the caller.
    Buffer(u32),
}

/// Binary operations, applied per component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Min,
    Max,
    Atan2,
    Pow,
    Step,
    Ldexp,
}

/// Unary operations, applied per component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnOp {
    Neg,
    Not,
    LogicalNot,
    Abs,
    Sign,
    Floor,
    Ceil,
    Round,
    Fract,
    Trunc,
    Sqrt,
    InverseSqrt,
    Exp,
    Exp2,
    Log,
    Log2,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Radians,
    Degrees,
    Saturate,
    CountOneBits,
    ReverseBits,
    FirstLeadingBit,
    FirstTrailingBit,
    CountLeadingZeros,
    CountTrailingZeros,
    QuantizeToF16,
    IsNan,
    IsInf,
    /// Value conversion from `Kind` (the op's kind) to the target kind.
    ToF32,
    ToI32,
    ToU32,
    ToBool,
}

/// Three-operand per-component operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TerOp {
    Clamp,
    Mix,
    SmoothStep,
    Fma,
    ExtractBits,
}

/// Per-lane operations that reshape values (different input and output component counts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaneFn {
    Cross,
    Length,
    Distance,
    Normalize,
    All,
    Any,
    InsertBits,
    Reflect,
    FaceForward,
    Pack4x8Snorm,
    Pack4x8Unorm,
    Pack2x16Snorm,
    Pack2x16Unorm,
    Pack2x16Float,
    Pack4xI8,
    Pack4xU8,
    Pack4xI8Clamp,
    Pack4xU8Clamp,
    Unpack4x8Snorm,
    Unpack4x8Unorm,
    Unpack2x16Snorm,
    Unpack2x16Unorm,
    Unpack2x16Float,
    Unpack4xI8,
    Unpack4xU8,
    Dot4I8Packed,
    Dot4U8Packed,
}

/// Atomic read-modify-write functions, as the caller must perform them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicFun {
    /// `old + value` (wrapping).
    Add,
    /// `old - value` (wrapping).
    Sub,
    /// `old & value`.
    And,
    /// `old | value`.
    Or,
    /// `old ^ value`.
    Xor,
    /// Minimum, signed or unsigned per [`AtomicOp::signed`].
    Min,
    /// Maximum, signed or unsigned per [`AtomicOp::signed`].
    Max,
    /// Store `value`, return the old value.
    Exchange,
    /// Store `value` if `old == compare`; return the old value either way.
    CompareExchange,
}

/// One atomic operation: the function and whether the 32-bit words are signed (matters for
/// min and max only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AtomicOp {
    /// The read-modify-write function.
    pub fun: AtomicFun,
    /// True for `atomic<i32>`, false for `atomic<u32>`.
    pub signed: bool,
}

impl AtomicOp {
    /// The value an atomic leaves in memory, given the old value, the operand and (for
    /// compare-exchange) the comparator. The shared definition of atomic semantics: the flat
    /// driver uses it, and a cache model should too.
    pub fn apply(self, old: u32, value: u32, compare: u32) -> u32 {
        match self.fun {
            AtomicFun::Add => old.wrapping_add(value),
            AtomicFun::Sub => old.wrapping_sub(value),
            AtomicFun::And => old & value,
            AtomicFun::Or => old | value,
            AtomicFun::Xor => old ^ value,
            AtomicFun::Min if self.signed => (old as i32).min(value as i32) as u32,
            AtomicFun::Min => old.min(value),
            AtomicFun::Max if self.signed => (old as i32).max(value as i32) as u32,
            AtomicFun::Max => old.max(value),
            AtomicFun::Exchange => value,
            AtomicFun::CompareExchange => {
                if old == compare {
                    value
                } else {
                    old
                }
            }
        }
    }
}

/// Barrier flags, mirroring naga's (and WGSL's) barrier scopes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BarrierFlags {
    /// Storage-buffer memory (`storageBarrier`).
    pub storage: bool,
    /// Workgroup memory (`workgroupBarrier`).
    pub workgroup: bool,
    /// Subgroup scope (`subgroupBarrier`).
    pub subgroup: bool,
    /// Storage textures (`textureBarrier`).
    pub texture: bool,
}

/// Kind of resource behind a binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BindingKind {
    /// A storage buffer; `read_only` for `var<storage, read>`.
    StorageBuffer {
        /// True if the shader cannot write it.
        read_only: bool,
    },
    /// A uniform buffer.
    UniformBuffer,
    /// A sampled image (WGSL `texture_1d/2d/2d_array/3d<T>`; GLSL `texture2D` etc.), read by
    /// `textureLoad` and `textureSampleLevel`.
    SampledImage {
        /// Dimensionality of the image.
        dim: ImageDim,
        /// An array of layers (`texture_2d_array`, `texture2DArray`).
        arrayed: bool,
        /// What the shader reads from it: f32, u32 or i32 words.
        sample: SampleKind,
    },
    /// A storage image (WGSL `texture_storage_*<format, access>`; GLSL `image2D`), read by
    /// `textureLoad` and written by `textureStore`.
    StorageImage {
        /// Dimensionality of the image.
        dim: ImageDim,
        /// An array of layers (`texture_storage_2d_array`, `image2DArray`).
        arrayed: bool,
        /// The texel format the shader declares.
        format: StorageFormat,
        /// The access the shader declares.
        access: StorageAccess,
    },
    /// A sampler (WGSL `sampler`). `sampler_comparison` is refused at compile time.
    ///
    /// naga's SPIR-V front end does not accept combined image samplers (a sampling or fetch
    /// through one fails to load), so an image and a sampler are always two bindings of their
    /// own; should a front end give one as two variables of the same (group, binding), they are
    /// reflected as two bindings, the image first.
    Sampler,
}

/// Dimensionality of an image binding (cube images are refused at compile time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageDim {
    /// One-dimensional: coordinates `x`.
    D1,
    /// Two-dimensional: coordinates `x, y`.
    D2,
    /// Three-dimensional: coordinates `x, y, z`.
    D3,
}

impl ImageDim {
    /// Number of coordinates (1, 2 or 3).
    pub(crate) fn coords(self) -> u32 {
        match self {
            ImageDim::D1 => 1,
            ImageDim::D2 => 2,
            ImageDim::D3 => 3,
        }
    }
}

/// What a sampled image gives the shader: the type of the words of a texel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SampleKind {
    /// `f32` words (`texture_2d<f32>`, `texture2D`).
    Float,
    /// `u32` words (`texture_2d<u32>`, `utexture2D`).
    Uint,
    /// `i32` words (`texture_2d<i32>`, `itexture2D`).
    Sint,
}

/// The access a storage image is declared with (`atomic` access is refused at compile time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StorageAccess {
    /// `read` (GLSL `readonly`): `textureLoad` only.
    Read,
    /// `write` (GLSL `writeonly`): `textureStore` only.
    Write,
    /// `read_write` (GLSL without a qualifier): both.
    ReadWrite,
}

/// The storage formats the simulator supports (named as Vulkan names them, see
/// [`StorageFormat::vk_name`]): anything else is refused at compile time with a located error
/// naming the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StorageFormat {
    /// `rgba8unorm`: four 8-bit unsigned normalized channels, read and written as f32.
    Rgba8Unorm,
    /// `rgba8uint`: four 8-bit unsigned integer channels.
    Rgba8Uint,
    /// `rgba8sint`: four 8-bit signed integer channels.
    Rgba8Sint,
    /// `r32uint`: one 32-bit unsigned integer channel.
    R32Uint,
    /// `r32sint`: one 32-bit signed integer channel.
    R32Sint,
    /// `r32float`: one 32-bit float channel.
    R32Float,
    /// `rg32float`: two 32-bit float channels.
    Rg32Float,
    /// `rgba16float`: four 16-bit float channels, read and written as f32.
    Rgba16Float,
    /// `rgba32float`: four 32-bit float channels.
    Rgba32Float,
    /// `rgba32uint`: four 32-bit unsigned integer channels.
    Rgba32Uint,
    /// `rgba32sint`: four 32-bit signed integer channels.
    Rgba32Sint,
    /// `bgra8unorm`: four 8-bit unsigned normalized channels stored blue first, read and
    /// written as f32 (red first, as every format is seen by the shader).
    Bgra8Unorm,
}

impl StorageFormat {
    /// The Vulkan name of the format, without the `VK_FORMAT_` prefix: `"R8G8B8A8_UNORM"`,
    /// `"R32_UINT"`, `"R32G32B32A32_SFLOAT"`, `"B8G8R8A8_UNORM"`, ...
    pub fn vk_name(self) -> &'static str {
        match self {
            StorageFormat::Rgba8Unorm => "R8G8B8A8_UNORM",
            StorageFormat::Rgba8Uint => "R8G8B8A8_UINT",
            StorageFormat::Rgba8Sint => "R8G8B8A8_SINT",
            StorageFormat::R32Uint => "R32_UINT",
            StorageFormat::R32Sint => "R32_SINT",
            StorageFormat::R32Float => "R32_SFLOAT",
            StorageFormat::Rg32Float => "R32G32_SFLOAT",
            StorageFormat::Rgba16Float => "R16G16B16A16_SFLOAT",
            StorageFormat::Rgba32Float => "R32G32B32A32_SFLOAT",
            StorageFormat::Rgba32Uint => "R32G32B32A32_UINT",
            StorageFormat::Rgba32Sint => "R32G32B32A32_SINT",
            StorageFormat::Bgra8Unorm => "B8G8R8A8_UNORM",
        }
    }

    /// The type of the words the shader reads and writes.
    pub(crate) fn texel_kind(self) -> SampleKind {
        match self {
            StorageFormat::Rgba8Uint | StorageFormat::R32Uint | StorageFormat::Rgba32Uint => SampleKind::Uint,
            StorageFormat::Rgba8Sint | StorageFormat::R32Sint | StorageFormat::Rgba32Sint => SampleKind::Sint,
            _ => SampleKind::Float,
        }
    }
}

/// One binding used by the entry point: a buffer, an image or a sampler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingInfo {
    /// Descriptor set / bind group.
    pub group: u32,
    /// Binding number within the group.
    pub binding: u32,
    /// Storage or uniform buffer, image or sampler.
    pub kind: BindingKind,
    /// Byte size of the fixed-size part of the variable's type (the whole type if it has no
    /// runtime-sized array). The bound range should be at least this large. 0 for images and
    /// samplers.
    pub static_size: u32,
    /// Stride of the trailing runtime-sized array, if the type ends in one (`None` for images
    /// and samplers).
    pub runtime_stride: Option<u32>,
    /// Variable name in the shader, if any.
    pub name: Option<String>,
    /// A storage buffer decorated `Coherent` (the variable, or every member of its block):
    /// legacy SPIR-V's per-access availability and visibility at device scope, so that every
    /// access is made at the device's coherence point, as an atomic's is. (naga's GLSL front end
    /// refuses the `coherent` qualifier: GLSL that uses it is compiled to SPIR-V first.)
    pub coherent: bool,
    /// For a storage block only some of whose members are `Coherent` (GLSL's `coherent` on a
    /// member): those members' bytes, as ranges from the start of the binding, in ascending
    /// order, in whole 4-byte words, touching ranges merged (a member runs to the next member's
    /// offset; an `end` of `u32::MAX` means to the end of the binding, as for a last member that
    /// is a runtime-sized array). Accesses inside them are made at the coherence point, the rest
    /// as usual. Empty otherwise.
    pub coherent_ranges: Vec<std::ops::Range<u32>>,
    /// The entry point stores to it (a plain or atomic store somewhere in its code; for a
    /// storage image, a `textureStore`). A storage buffer or image that is writable but never
    /// written is only read.
    pub written: bool,
    /// Every access the entry point makes to it is atomic (atomicLoad, atomicStore or a
    /// read-modify-write), and it makes at least one. Two atomic operations on the same bytes
    /// through the same binding are never a data race (the memory model's mutually-ordered
    /// atomics), which a model that takes the whole bound range can know only from this.
    pub atomic_only: bool,
}

/// The pipeline stage of an entry point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderStage {
    /// A compute shader (`@compute`): workgroups of invocations.
    Compute,
    /// A vertex shader (`@vertex`): one invocation per vertex.
    Vertex,
    /// A fragment shader (`@fragment`): one invocation per pixel, in 2x2 quads.
    Fragment,
}

impl ShaderStage {
    /// Vulkan's name of the stage (`VERTEX`, `FRAGMENT`, `COMPUTE`).
    pub fn vk_name(self) -> &'static str {
        match self {
            ShaderStage::Compute => "COMPUTE",
            ShaderStage::Vertex => "VERTEX",
            ShaderStage::Fragment => "FRAGMENT",
        }
    }
}

/// What an input or output of a vertex or fragment entry point is bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IoBinding {
    /// `@location(n)`: a vertex attribute (vertex inputs), a varying (vertex outputs and
    /// fragment inputs) or a colour attachment (fragment outputs).
    Location(u32),
    /// `@builtin(position)`: the clip-space position (vertex output) or the fragment's
    /// framebuffer coordinates `(x + 0.5, y + 0.5, z, 1 / w)` (fragment input).
    Position,
    /// `@builtin(vertex_index)`.
    VertexIndex,
    /// `@builtin(instance_index)`.
    InstanceIndex,
    /// `@builtin(front_facing)`: 1 for a front-facing primitive.
    FrontFacing,
    /// `@builtin(frag_depth)`: the fragment's depth (fragment output).
    FragDepth,
}

/// The scalar type of an input or output's components.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IoScalar {
    /// 32-bit floats.
    Float,
    /// 32-bit unsigned integers.
    Uint,
    /// 32-bit signed integers.
    Sint,
    /// A boolean (0 or 1).
    Bool,
}

/// How a fragment input is interpolated across a primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Perspective-correct (WGSL's default for floats).
    Perspective,
    /// Linear in screen space (`@interpolate(linear)`, GLSL `noperspective`).
    Linear,
    /// The provoking vertex's value (`@interpolate(flat)`; integers are always flat).
    Flat,
}

/// One input or output of a vertex or fragment entry point: what it is bound to, its shape, and
/// where its words lie in an invocation's input (or output) words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IoVar {
    /// Its binding.
    pub binding: IoBinding,
    /// Components (1 to 4).
    pub components: u32,
    /// Their scalar type.
    pub scalar: IoScalar,
    /// Interpolation (meaningful for fragment inputs and vertex outputs).
    pub interpolation: Interpolation,
    /// Its first word in the invocation's input or output words.
    pub word: u32,
}

/// Built-in inputs an entry point can read; filled per lane when a subgroup is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Input {
    /// `n` words from the invocation's input words (vertex and fragment stages), from `word`.
    Lane { word: u32, n: u32 },
    GlobalInvocationId,
    LocalInvocationId,
    LocalInvocationIndex,
    WorkGroupId,
    NumWorkGroups,
    WorkGroupSize,
    SubgroupSize,
    SubgroupInvocationId,
    NumSubgroups,
    SubgroupId,
}

/// One instruction. Pure operations compute every lane (inactive lanes' results are never
/// read, see the interpreter's design note); memory and control operations honour the mask.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// `dst[c] = src[c]` for all lanes.
    Copy { dst: Reg, src: Reg, n: u32 },
    /// `dst[c] = src[c]` for active lanes only (return values, results kept across masks).
    CopyMasked { dst: Reg, src: Reg, n: u32 },
    /// `dst[c] = src[0]`.
    Splat { dst: Reg, src: Reg, n: u32 },
    /// `dst[i] = src[pattern[i]]`.
    Swizzle { dst: Reg, src: Reg, n: u32, pattern: [u8; 4] },
    /// Per-component binary op; `sa`/`sb` broadcast a one-component operand.
    Bin { op: BinOp, kind: Kind, dst: Reg, a: Reg, b: Reg, n: u32, sa: bool, sb: bool },
    /// Per-component unary op; `kind` is the operand's kind.
    Un { op: UnOp, kind: Kind, dst: Reg, a: Reg, n: u32 },
    /// Per-component ternary op with broadcast flags.
    Ter { op: TerOp, kind: Kind, dst: Reg, a: Reg, b: Reg, c: Reg, n: u32, s: [bool; 3] },
    /// `insertBits`-style and reshaping per-lane functions.
    Lane { f: LaneFn, kind: Kind, dst: Reg, a: Reg, b: Reg, c: Reg, d: Reg, n: u32 },
    /// `dst = cond ? a : b`, per component; `sc` if the condition is a scalar.
    Select { dst: Reg, cond: Reg, a: Reg, b: Reg, n: u32, sc: bool },
    /// Dot product of two `n`-vectors.
    Dot { kind: Kind, dst: Reg, a: Reg, b: Reg, n: u32 },
    /// `A (k columns of r rows) * B (c columns of k rows)`: covers mat*mat, mat*vec, vec*mat.
    MatMul { dst: Reg, a: Reg, b: Reg, r: u32, k: u32, c: u32 },
    /// Transpose of a matrix of `cols` columns of `rows` rows.
    Transpose { dst: Reg, src: Reg, cols: u32, rows: u32 },
    /// Outer product: `a` of `r` comps, `b` of `c` comps → c columns of r rows.
    Outer { dst: Reg, a: Reg, b: Reg, r: u32, c: u32 },
    /// `dst = base[index]` on a value with `count` elements of `elem` components.
    DynIndex { dst: Reg, base: Reg, index: Reg, elem: u32, count: u32 },
    /// Per-lane byte offset: `dst = base + index * stride` (saturating; `base` may be NO_REG).
    Addr { dst: Reg, base: Reg, index: Reg, stride: u32 },
    /// `arrayLength`: `(bound_size - offset) / stride` of a buffer binding.
    ArrayLength { dst: Reg, binding: u32, offset: u32, stride: u32 },
    /// Load `n` words at `base + off + dyn` (bytes) of `space`, checked against `root`
    /// bytes starting at `base`.
    Load { space: Space, dst: Reg, n: u32, base: u32, root: u32, off: u32, dyn_off: Reg, atomic: bool },
    /// Store `n` words from `src`.
    Store { space: Space, src: Reg, n: u32, base: u32, root: u32, off: u32, dyn_off: Reg, atomic: bool },
    /// Atomic read-modify-write of one word; `dst` receives the old value (and, for
    /// compare-exchange, `dst + 1` whether it exchanged) unless NO_REG.
    Atomic { space: Space, op: AtomicOp, dst: Reg, value: Reg, compare: Reg, base: u32, root: u32, off: u32, dyn_off: Reg },
    /// Initialise `n` words of lane memory from constant registers (or zero if `src` is NO_REG)
    /// for active lanes.
    InitLane { word: u32, src: Reg, n: u32 },
    /// `masks[slot] = exec`.
    SaveExec { slot: u32 },
    /// `masks[slot] = 0`.
    ClearMask { slot: u32 },
    /// `exec = masks[slot]`.
    SetExec { slot: u32 },
    /// `masks[then] = exec & cond; exec = masks[then]`; jump to `target` if none remain.
    IfBegin { cond: Reg, then: u32, target: u32 },
    /// `exec = masks[entry] & !masks[then] & !minus`; jump to `target` if none remain.
    Else { entry: u32, then: u32, minus: [u32; 3], target: u32 },
    /// `exec = masks[entry] & !(masks[minus[0]] | masks[minus[1]] | masks[minus[2]])`.
    Restore { entry: u32, minus: [u32; 3] },
    /// Break / continue / return: `masks[slot] |= exec; exec = 0`, jump to `target`.
    Leave { slot: u32, target: u32 },
    /// `discard`: the active lanes are killed (their outputs are dropped and they make no
    /// further accesses); a `Leave` to the entry point's end follows.
    Kill,
    /// `dst = d(src)/dx` or `d(src)/dy` over each 2x2 quad of lanes (lanes `4q..4q+3`, in the
    /// order (0,0), (1,0), (0,1), (1,1)): `fine` differences within the lane's row or column,
    /// coarse ones the quad's first row or column; `width` is `|dx| + |dy|`.
    Derivative { dst: Reg, src: Reg, n: u32, axis: DerivativeAxis, fine: bool },
    /// `masks[brk] |= exec & cond; exec &= !cond`.
    BreakIf { cond: Reg, brk: u32 },
    /// Jump to `target` if any lane is active.
    JumpIfAny { target: u32 },
    /// Jump to `target` if no lane is active.
    JumpIfNone { target: u32 },
    /// Switch case entry: add the lanes of `masks[entry]` whose selector matches (or, for
    /// `default`, matches none of) `case_values[start..start+len]` to `masks[acc]`, then
    /// `exec = masks[acc] & !minus`; jump to `target` if none remain.
    CaseBegin { sel: Reg, start: u32, len: u32, default: bool, acc: u32, entry: u32, minus: [u32; 3], target: u32 },
    /// End of a switch case: `masks[acc] = fall ? exec : 0`.
    CaseEnd { acc: u32, fall: bool },
    /// An image access (load, sample or store) of the image at binding index `image`; yields an
    /// image request unless no active lane is in range. `coords` holds `n` coordinates (i32 or
    /// u32 bits for load and store, f32 for sample); `layer` the array layer or NO_REG
    /// (`layer_kind` F32: a float layer, rounded to nearest even); `level` the mip level (load)
    /// or the f32 level of detail (sample), or NO_REG for 0; `value` the `nv` components stored.
    /// Loads and samples write four words at `dst`.
    Image(ImageArgs),
    /// An image query answered from the bound image's shape: `dst` receives `n` words.
    ImageQuery { query: ImageQueryOp, image: u32, dst: Reg, level: Reg },
    /// A barrier; yields to the caller.
    Barrier { control: bool, flags: BarrierFlags },
    /// End of the entry point.
    Done,
}

/// What an [`Op::ImageQuery`] asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ImageQueryOp {
    /// `textureDimensions`: the first `n` extents of the level in the `level` register (level
    /// 0 if NO_REG).
    Size { n: u32 },
    /// `textureNumLevels`.
    NumLevels,
    /// `textureNumLayers`.
    NumLayers,
}

/// A compiled compute entry point.
#[derive(Debug)]
pub(crate) struct Program {
    pub name: String,
    pub entry_point: String,
    pub stage: ShaderStage,
    /// Vertex and fragment stages: the inputs, laid out in the input words.
    pub io_inputs: Vec<IoVar>,
    /// Vertex and fragment stages: the outputs, laid out in the output words, each with the
    /// register holding it at the end.
    pub io_outputs: Vec<(Reg, IoVar)>,
    pub workgroup_size: [u32; 3],
    pub code: Vec<Op>,
    pub num_regs: u32,
    pub num_masks: u32,
    /// Words of lane memory (function + private variables) per lane.
    pub lane_words: u32,
    pub workgroup_words: u32,
    pub push_constant_bytes: u32,
    pub bindings: Vec<BindingInfo>,
    /// Registers filled with constants (broadcast to all lanes) at subgroup creation.
    pub consts: Vec<(Reg, Vec<u32>)>,
    /// Registers filled with built-in inputs at subgroup creation.
    pub inputs: Vec<(Reg, Input)>,
    /// Selector values of switch cases, referenced by `CaseBegin`.
    pub case_values: Vec<u32>,
}

/// The direction of an [`Op::Derivative`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DerivativeAxis {
    X,
    Y,
    Width,
}

/// Kind of image access.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ImageOp {
    /// `textureLoad` / `texelFetch` / `imageLoad`: each lane's texel at integer coordinates and
    /// level.
    Load,
    /// `textureSampleLevel` (GLSL `textureLod` and the like, with an explicit level of detail):
    /// normalized coordinates, an explicit level of detail, filtered by the sampler at binding
    /// index `sampler`.
    SampleLevel {
        /// Index into [`crate::ComputePipeline::bindings`] of the sampler.
        sampler: u32,
    },
    /// `textureStore` / `imageStore`: each lane's value written at integer coordinates (level 0
    /// of the view).
    Store,
}

/// The operands of an [`Op::Image`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct ImageArgs {
    pub op: ImageOp,
    pub image: u32,
    pub dst: Reg,
    pub coords: Reg,
    pub n: u32,
    pub layer: Reg,
    pub layer_kind: Kind,
    pub level: Reg,
    pub value: Reg,
    pub nv: u32,
    /// A sample's level of detail comes from the quad's derivatives of its coordinates (and
    /// `level` holds a bias, if any): fragment shaders' `textureSample`, `textureSampleBias`.
    pub auto_lod: bool,
}
