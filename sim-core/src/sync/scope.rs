//! Synchronization scopes: which stages and which (stage, access) usages a barrier covers.
//!
//! The rules are the Vulkan specification's, in the order the sync-validation design applies
//! them:
//! 1. **Meta-stage substitution.** `ALL_COMMANDS`, `ALL_GRAPHICS`, `ALL_TRANSFER` (`TRANSFER`),
//!    `PRE_RASTERIZATION_SHADERS` and `VERTEX_INPUT` are replaced by their member stages.
//!    `TOP_OF_PIPE` is no stage in a first scope and `ALL_COMMANDS` with no access in a second;
//!    `BOTTOM_OF_PIPE` is `ALL_COMMANDS` with no access in a first scope and no stage in a second
//!    (synchronization2's definitions, which synchronization1 names share).
//! 2. **Execution scopes expand.** A first scope also holds every stage logically *earlier* than
//!    one it names, a second scope every stage logically *later*, following the stage order of
//!    each pipeline type (graphics, mesh, compute, transfer, host).
//! 3. **Access scopes restrict.** An access scope holds only the usages (stage, access) that are
//!    legal for the stages *explicitly* named (after substitution, before expansion, as the
//!    specification says), with the umbrellas split first: `SHADER_READ` into
//!    `SHADER_SAMPLED_READ | SHADER_STORAGE_READ`, `SHADER_WRITE` into `SHADER_STORAGE_WRITE`,
//!    `MEMORY_READ` / `MEMORY_WRITE` into every read / write legal for the stage.
//!    A first access scope keeps only writes: reads make nothing available (Mesa's
//!    `vk_filter_src_access_flags2` does the same).
//!
//! Usages are named as the sync-validation seed names them: the stage's short name then the
//! access's (`COMPUTE_SHADER_SHADER_STORAGE_WRITE`).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::flags::{AccessFlags2 as A, PipelineStageFlags2 as S};

/// The kind of pipeline (or queue operation) whose stage order a scope expands along.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PipelineType {
    /// The primitive-shading graphics pipeline (vertex input through colour output).
    Graphics,
    /// The mesh-shading graphics pipeline (task and mesh shaders).
    Mesh,
    /// Dispatches.
    Compute,
    /// Copies, blits, resolves and clears.
    Transfer,
    /// Host accesses to mapped memory.
    Host,
}

impl PipelineType {
    /// Every pipeline type.
    pub const ALL: [PipelineType; 5] =
        [PipelineType::Graphics, PipelineType::Mesh, PipelineType::Compute, PipelineType::Transfer, PipelineType::Host];

    /// The stages of this pipeline type, as levels in logical order: a stage in one level is
    /// logically earlier than every stage in a later level. Stages within one level are not
    /// ordered against each other (the transfer commands).
    pub fn stage_order(self) -> &'static [S] {
        const GRAPHICS: &[S] = &[
            S::CONDITIONAL_RENDERING,
            S::DRAW_INDIRECT,
            S::INDEX_INPUT,
            S::VERTEX_ATTRIBUTE_INPUT,
            S::VERTEX_SHADER,
            S::TESSELLATION_CONTROL_SHADER,
            S::TESSELLATION_EVALUATION_SHADER,
            S::GEOMETRY_SHADER,
            S::TRANSFORM_FEEDBACK,
            S::FRAGMENT_SHADING_RATE_ATTACHMENT,
            S::EARLY_FRAGMENT_TESTS,
            S::FRAGMENT_SHADER,
            S::LATE_FRAGMENT_TESTS,
            S::COLOR_ATTACHMENT_OUTPUT,
        ];
        const MESH: &[S] = &[
            S::CONDITIONAL_RENDERING,
            S::DRAW_INDIRECT,
            S::TASK_SHADER,
            S::MESH_SHADER,
            S::FRAGMENT_SHADING_RATE_ATTACHMENT,
            S::EARLY_FRAGMENT_TESTS,
            S::FRAGMENT_SHADER,
            S::LATE_FRAGMENT_TESTS,
            S::COLOR_ATTACHMENT_OUTPUT,
        ];
        const COMPUTE: &[S] = &[S::CONDITIONAL_RENDERING, S::DRAW_INDIRECT, S::COMPUTE_SHADER];
        const TRANSFER: &[S] = &[S(S::COPY.0 | S::BLIT.0 | S::RESOLVE.0 | S::CLEAR.0)];
        const HOST: &[S] = &[S::HOST];
        match self {
            PipelineType::Graphics => GRAPHICS,
            PipelineType::Mesh => MESH,
            PipelineType::Compute => COMPUTE,
            PipelineType::Transfer => TRANSFER,
            PipelineType::Host => HOST,
        }
    }

    /// Every stage of this pipeline type.
    pub fn stages(self) -> S {
        self.stage_order().iter().fold(S::NONE, |m, s| m | *s)
    }
}

/// Every stage a queue's commands run (`ALL_COMMANDS` after substitution): all stages but HOST.
pub fn all_device_stages() -> S {
    PipelineType::ALL.iter().filter(|t| **t != PipelineType::Host).fold(S::NONE, |m, t| m | t.stages())
}

/// Every graphics stage (`ALL_GRAPHICS` after substitution).
pub fn all_graphics_stages() -> S {
    PipelineType::Graphics.stages() | PipelineType::Mesh.stages()
}

/// The stages of a pipeline type, or of every device pipeline when `None`.
fn device_stages_of(pipeline: Option<PipelineType>) -> S {
    match pipeline {
        Some(t) => t.stages(),
        None => all_device_stages(),
    }
}

const META: S = S(S::TOP_OF_PIPE.0
    | S::BOTTOM_OF_PIPE.0
    | S::ALL_COMMANDS.0
    | S::ALL_GRAPHICS.0
    | S::ALL_TRANSFER.0
    | S::PRE_RASTERIZATION_SHADERS.0
    | S::VERTEX_INPUT.0);

/// Which half of a dependency a mask belongs to; it decides what TOP/BOTTOM_OF_PIPE mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// The first synchronization scope (`src`): the flush side.
    First,
    /// The second synchronization scope (`dst`): the invalidate side.
    Second,
}

/// The members of the grouping stages in `stages`: ALL_TRANSFER's transfer stages, VERTEX_INPUT's
/// index and attribute input, PRE_RASTERIZATION_SHADERS's shader stages (the core ones; callers
/// add extension stages they know of).
pub fn grouped_stage_members(stages: S) -> S {
    let mut out = S::NONE;
    if stages.contains(S::ALL_TRANSFER) {
        out |= S::COPY | S::BLIT | S::RESOLVE | S::CLEAR;
    }
    if stages.contains(S::VERTEX_INPUT) {
        out |= S::INDEX_INPUT | S::VERTEX_ATTRIBUTE_INPUT;
    }
    if stages.contains(S::PRE_RASTERIZATION_SHADERS) {
        out |= S::VERTEX_SHADER | S::TESSELLATION_CONTROL_SHADER | S::TESSELLATION_EVALUATION_SHADER | S::GEOMETRY_SHADER | S::TASK_SHADER | S::MESH_SHADER;
    }
    out
}

/// Replaces meta stages by their members. Returns (stages that carry accesses, stages that only
/// carry execution): TOP_OF_PIPE in a second scope and BOTTOM_OF_PIPE in a first scope stand
/// for every stage but with no access, so they land in the second set.
pub fn substitute_meta_stages(stages: S, scope: Scope, pipeline: Option<PipelineType>) -> (S, S) {
    let mut access_stages = stages.difference(META);
    let mut execution_only = S::NONE;
    if stages.contains(S::ALL_COMMANDS) {
        access_stages |= device_stages_of(pipeline);
    }
    if stages.contains(S::ALL_GRAPHICS) {
        access_stages |= all_graphics_stages().intersection(device_stages_of(pipeline));
    }
    access_stages |= grouped_stage_members(stages);
    let whole_pipe = match scope {
        Scope::First => S::BOTTOM_OF_PIPE,
        Scope::Second => S::TOP_OF_PIPE,
    };
    if stages.contains(whole_pipe) {
        execution_only |= device_stages_of(pipeline);
    }
    (access_stages, execution_only.difference(access_stages))
}

fn expand(stages: S, pipeline: Option<PipelineType>, earlier: bool) -> S {
    let mut out = stages;
    let types: &[PipelineType] = match &pipeline {
        Some(t) => std::slice::from_ref(t),
        None => &PipelineType::ALL,
    };
    for t in types {
        let order = t.stage_order();
        for (i, level) in order.iter().enumerate() {
            if !stages.intersects(*level) {
                continue;
            }
            let range = if earlier { &order[..i] } else { &order[i + 1..] };
            for l in range {
                out |= *l;
            }
        }
    }
    out
}

/// The first synchronization (execution) scope of `stages`: meta stages substituted, then every
/// logically earlier stage of `pipeline` (of every pipeline type when `None`) added.
pub fn first_scope_stages(stages: S, pipeline: Option<PipelineType>) -> S {
    let (a, e) = substitute_meta_stages(stages, Scope::First, pipeline);
    expand(a | e, pipeline, true)
}

/// The second synchronization (execution) scope of `stages`: meta stages substituted, then every
/// logically later stage added.
pub fn second_scope_stages(stages: S, pipeline: Option<PipelineType>) -> S {
    let (a, e) = substitute_meta_stages(stages, Scope::Second, pipeline);
    expand(a | e, pipeline, false)
}

/// The accesses a single (non-meta) stage can perform, as synchronization2 parts (no umbrellas).
pub fn legal_accesses_of_stage(stage: S) -> A {
    const SHADER: A = A(A::UNIFORM_READ.0 | A::SHADER_SAMPLED_READ.0 | A::SHADER_STORAGE_READ.0 | A::SHADER_STORAGE_WRITE.0);
    match stage {
        S::DRAW_INDIRECT => A::INDIRECT_COMMAND_READ | A::TRANSFORM_FEEDBACK_COUNTER_READ,
        S::CONDITIONAL_RENDERING => A::CONDITIONAL_RENDERING_READ,
        S::INDEX_INPUT => A::INDEX_READ,
        S::VERTEX_ATTRIBUTE_INPUT => A::VERTEX_ATTRIBUTE_READ,
        S::VERTEX_SHADER
        | S::TESSELLATION_CONTROL_SHADER
        | S::TESSELLATION_EVALUATION_SHADER
        | S::GEOMETRY_SHADER
        | S::COMPUTE_SHADER
        | S::TASK_SHADER
        | S::MESH_SHADER => SHADER,
        S::FRAGMENT_SHADER => SHADER | A::INPUT_ATTACHMENT_READ,
        S::TRANSFORM_FEEDBACK => {
            A::TRANSFORM_FEEDBACK_WRITE | A::TRANSFORM_FEEDBACK_COUNTER_READ | A::TRANSFORM_FEEDBACK_COUNTER_WRITE
        }
        S::FRAGMENT_SHADING_RATE_ATTACHMENT => A::FRAGMENT_SHADING_RATE_ATTACHMENT_READ,
        S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS => {
            A::DEPTH_STENCIL_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_WRITE
        }
        S::COLOR_ATTACHMENT_OUTPUT => A::COLOR_ATTACHMENT_READ | A::COLOR_ATTACHMENT_WRITE,
        S::COPY | S::BLIT | S::RESOLVE => A::TRANSFER_READ | A::TRANSFER_WRITE,
        S::CLEAR => A::TRANSFER_WRITE,
        S::HOST => A::HOST_READ | A::HOST_WRITE,
        _ => A::NONE,
    }
}

/// Splits the umbrella bits of `access` into the synchronization2 parts they stand for when
/// paired with `stage` (a single, non-meta stage): `SHADER_READ` into sampled and storage reads,
/// `SHADER_WRITE` into storage writes, `MEMORY_READ`/`MEMORY_WRITE` into every read/write legal
/// for the stage. The result is restricted to the accesses legal for the stage.
pub fn split_access_for_stage(stage: S, access: A) -> A {
    let legal = legal_accesses_of_stage(stage);
    let mut parts = access.difference(A::UMBRELLAS);
    if access.contains(A::SHADER_READ) {
        parts |= A::SHADER_SAMPLED_READ | A::SHADER_STORAGE_READ;
    }
    if access.contains(A::SHADER_WRITE) {
        parts |= A::SHADER_STORAGE_WRITE;
    }
    if access.contains(A::MEMORY_READ) {
        parts |= legal.intersection(A::ALL_READS);
    }
    if access.contains(A::MEMORY_WRITE) {
        parts |= legal.intersection(A::ALL_WRITES);
    }
    parts.intersection(legal)
}

/// A memory usage: one stage performing one access (a synchronization2 part, never an
/// umbrella). Its name is the stage's short name then the access's, as in
/// `COMPUTE_SHADER_SHADER_STORAGE_WRITE`; the index is its position in [`all_usages`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StageAccess {
    index: u8,
}

struct UsageTable {
    list: Vec<(S, A)>,
}

fn usage_table() -> &'static UsageTable {
    static TABLE: std::sync::OnceLock<UsageTable> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        // Pipeline order, then transfer, then host: the order reports list usages in.
        let mut stages: Vec<S> = Vec::new();
        for t in PipelineType::ALL {
            for level in t.stage_order() {
                for s in level.iter() {
                    if !stages.contains(&s) {
                        stages.push(s);
                    }
                }
            }
        }
        // Compute after the graphics stages, as the seed lists it.
        let mut list = Vec::new();
        for s in stages {
            for a in legal_accesses_of_stage(s).iter() {
                list.push((s, a));
            }
        }
        assert!(list.len() < TRANSITION as usize, "the layout transition's index is free");
        UsageTable { list }
    })
}

/// The index of the image layout transition's pseudo usage ([`StageAccess::IMAGE_LAYOUT_TRANSITION`]):
/// past every legal usage, within a [`UsageSet`].
const TRANSITION: u8 = 127;

impl StageAccess {
    /// The image layout transition an image barrier (or an event wait's) performs: a write of
    /// the subresources' bytes made after the barrier's first scope and before its second (the
    /// validation layer's `SYNC_IMAGE_LAYOUT_TRANSITION`). A pseudo usage: no stage performs it
    /// (its stage and access are `NONE`), no barrier's access scope names it, and it is not in
    /// [`all_usages`]; it prints as `IMAGE_LAYOUT_TRANSITION`.
    pub const IMAGE_LAYOUT_TRANSITION: StageAccess = StageAccess { index: TRANSITION };

    /// True for [`StageAccess::IMAGE_LAYOUT_TRANSITION`].
    pub fn is_layout_transition(self) -> bool {
        self.index == TRANSITION
    }

    /// The usage of `access` (a single synchronization2 part) by `stage` (a single non-meta
    /// stage), or `None` when that stage never performs that access.
    pub fn new(stage: S, access: A) -> Option<StageAccess> {
        usage_table().list.iter().position(|(s, a)| *s == stage && *a == access).map(|i| StageAccess { index: i as u8 })
    }
    /// The stage (one bit).
    pub fn stage(self) -> S {
        if self.is_layout_transition() {
            return S::NONE;
        }
        usage_table().list[self.index as usize].0
    }
    /// The access (one bit).
    pub fn access(self) -> A {
        if self.is_layout_transition() {
            return A::NONE;
        }
        usage_table().list[self.index as usize].1
    }
    /// Position in [`all_usages`], stable within a build (the bit in a [`UsageSet`]).
    pub fn index(self) -> usize {
        self.index as usize
    }
    /// True when the access writes.
    pub fn is_write(self) -> bool {
        self.is_layout_transition() || A::ALL_WRITES.contains(self.access())
    }
    /// The name, e.g. `COMPUTE_SHADER_SHADER_STORAGE_WRITE` (`IMAGE_LAYOUT_TRANSITION`).
    pub fn name(self) -> String {
        self.to_string()
    }
    /// Parses a usage name.
    pub fn parse(name: &str) -> Option<StageAccess> {
        if name == "IMAGE_LAYOUT_TRANSITION" {
            return Some(StageAccess::IMAGE_LAYOUT_TRANSITION);
        }
        all_usages().find(|u| u.name() == name)
    }
}

impl fmt::Display for StageAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_layout_transition() {
            return f.write_str("IMAGE_LAYOUT_TRANSITION");
        }
        write!(f, "{}_{}", self.stage(), self.access())
    }
}

impl fmt::Debug for StageAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for StageAccess {
    fn serialize<Se: serde::Serializer>(&self, s: Se) -> Result<Se::Ok, Se::Error> {
        s.collect_str(self)
    }
}

/// Every legal (stage, access) usage, in pipeline order.
pub fn all_usages() -> impl Iterator<Item = StageAccess> {
    (0..usage_table().list.len()).map(|i| StageAccess { index: i as u8 })
}

/// A set of usages, one bit each (there are fewer than 128).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct UsageSet(pub u128);

impl UsageSet {
    /// The empty set.
    pub const EMPTY: UsageSet = UsageSet(0);
    /// Adds a usage.
    pub fn insert(&mut self, u: StageAccess) {
        self.0 |= 1u128 << u.index();
    }
    /// True when `u` is in the set.
    pub fn contains(self, u: StageAccess) -> bool {
        self.0 & (1u128 << u.index()) != 0
    }
    /// True when the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The usages in the set, in pipeline order.
    pub fn iter(self) -> impl Iterator<Item = StageAccess> {
        all_usages().filter(move |u| self.contains(*u))
    }
    /// Union of the stages of the usages.
    pub fn stages(self) -> S {
        self.iter().fold(S::NONE, |m, u| m | u.stage())
    }
    /// Union of the accesses of the usages.
    pub fn accesses(self) -> A {
        self.iter().fold(A::NONE, |m, u| m | u.access())
    }
    /// The union of two sets.
    pub fn union(self, other: UsageSet) -> UsageSet {
        UsageSet(self.0 | other.0)
    }
}

impl fmt::Display for UsageSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("NONE");
        }
        let names: Vec<String> = self.iter().map(|u| u.name()).collect();
        f.write_str(&names.join("|"))
    }
}

impl fmt::Debug for UsageSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UsageSet({self})")
    }
}

fn access_scope(stages: S, access: A, scope: Scope) -> UsageSet {
    // Only explicitly named stages carry accesses (after meta substitution).
    let (access_stages, _) = substitute_meta_stages(stages, scope, None);
    let mut set = UsageSet::EMPTY;
    for s in access_stages.iter() {
        let mut parts = split_access_for_stage(s, access);
        if scope == Scope::First {
            parts = parts.intersection(A::ALL_WRITES);
        }
        for a in parts.iter() {
            if let Some(u) = StageAccess::new(s, a) {
                set.insert(u);
            }
        }
    }
    set
}

/// The first access scope: the writes of `access` legal for `stages` (reads make nothing
/// available, so they are dropped).
pub fn first_access_scope(stages: S, access: A) -> UsageSet {
    access_scope(stages, access, Scope::First)
}

/// The second access scope: the reads and writes of `access` legal for `stages`.
pub fn second_access_scope(stages: S, access: A) -> UsageSet {
    access_scope(stages, access, Scope::Second)
}

/// Every access legal for some stage of `stages` (meta stages substituted as in a second scope,
/// TOP_OF_PIPE excepted), as synchronization2 parts.
pub fn legal_accesses(stages: S) -> A {
    let (a, _) = substitute_meta_stages(stages, Scope::Second, None);
    a.iter().fold(A::NONE, |m, s| m | legal_accesses_of_stage(s))
}
