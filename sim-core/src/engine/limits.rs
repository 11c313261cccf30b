//! The budgets that bound a run and the device limits a program must keep: [`RunLimits`]
//! (cycles, shader instructions, transfer bytes), each run's [`InstructionBudget`], and the
//! checks of a program against a profile's limits (workgroup sizes, buffer ranges,
//! nonCoherentAtomSize) that both `run` and `check` make before anything runs.

use crate::api::error::{Budget, WorkloadError};
use crate::api::program::Program;
use crate::api::action::Work;
use crate::api::workload::HostOp;
use crate::engine::mapped::{host_ranges, host_side};
use crate::profile::Profile;

/// The most cycles a run may be given ([`RunLimits::max_cycles`]).
pub const MAX_CYCLES: u64 = 1 << 40;

/// `n` and the noun for it, singular or plural.
pub(crate) fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Why a simulated run that had read stale bytes may have run away.
pub(crate) fn stale_note(stale: u64) -> String {
    format!("it had already made {} (a loop bound read stale?): the trace is missing synchronization", count(stale, "stale read", "stale reads"))
}

/// Where a run is stopped, so that no trace runs (or holds memory) without end. The budgets are
/// deterministic: the same trace, profile and seed stop at the same point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunLimits {
    /// Simulated cycles, at most [`MAX_CYCLES`]. The default, 2^34, is about 11 seconds at a
    /// 1.5 GHz core clock: room for everything a trace within the caps can ask (reading all
    /// 256 MiB of host reads from uncached memory takes about 6.3 G cycles).
    pub max_cycles: u64,
    /// Shader instructions (summed over subgroups) each of the reference and the simulated run
    /// may execute, and so any one subgroup. The two runs execute the same instructions unless a
    /// stale read changes the simulated run's control flow. The default is 2^27. The memory the
    /// reference run keeps (one fingerprint per load) is bounded apart
    /// ([`crate::engine::reference::MAX_RECORDED_READS`]).
    pub max_instructions: u64,
    /// Bytes the trace's transfer commands (fills, updates, copies) move, summed over every
    /// submission of them; checked before anything runs. The reference run has no cycles to
    /// stop it, so this is what bounds its transfers: the default, 2^36 (64 GiB), takes minutes.
    pub max_transfer_bytes: u64,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits { max_cycles: 1 << 34, max_instructions: 1 << 27, max_transfer_bytes: 1 << 36 }
    }
}

impl RunLimits {
    /// Checks the budgets: each at least 1, and cycles at most [`MAX_CYCLES`]. The error names
    /// the field at fault (`max_cycles`, ...) and says what is wrong with its value, so that a
    /// caller can name it its own way (the command line names the flag).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(1..=MAX_CYCLES).contains(&self.max_cycles) {
            return Err(("max_cycles", format!("{} is not between 1 and {MAX_CYCLES}", self.max_cycles)));
        }
        for (field, value) in [("max_instructions", self.max_instructions), ("max_transfer_bytes", self.max_transfer_bytes)] {
            if value == 0 {
                return Err((field, "0: a budget must be at least 1".into()));
            }
        }
        Ok(())
    }

    /// Refuses a program whose transfer commands move more bytes than the budget.
    pub(crate) fn check_transfers(&self, prog: &Program<'_>) -> Result<(), WorkloadError> {
        let w = prog.workload;
        let mut total = 0u64;
        for (inst, ins) in prog.instances.iter().enumerate() {
            let Some(action) = prog.action(inst) else { continue };
            total = total.saturating_add(action.work.transfer_bytes());
            if total > self.max_transfer_bytes {
                return Err(WorkloadError::Budget {
                    budget: Budget::TransferBytes,
                    at: format!("command_buffers[{}].commands[{}] ({})", w.command_buffers[ins.cb].name, ins.index, action.vk_name),
                    message: format!(
                        "the trace's transfer commands move more than the budget of {} over all their submissions; this one, in submit {}, takes the total past it (raise the budget with --max-transfer-bytes)",
                        count(self.max_transfer_bytes, "byte", "bytes"),
                        ins.at.submit
                    ),
                });
            }
        }
        Ok(())
    }
}

/// A simulated run's budgets as it spends them.
pub(crate) struct RunBudget {
    /// Simulated cycles it may run.
    pub(crate) max_cycles: u64,
    /// Shader instructions it may execute.
    pub(crate) instructions: InstructionBudget,
    /// The command instance whose shader was running when the instruction budget ran out.
    pub(crate) spent_in: Option<usize>,
    /// The run's seed, for messages.
    pub(crate) seed: u64,
}

impl RunBudget {
    /// The budgets of `limits` for the simulated run of `seed`.
    pub(crate) fn new(limits: &RunLimits, seed: u64) -> RunBudget {
        RunBudget { max_cycles: limits.max_cycles, instructions: InstructionBudget::new(limits, format!("the simulated run (seed {seed})")), spent_in: None, seed }
    }

    /// The error of a run that went past its cycles at `t`; `stale` reads it had made.
    pub(crate) fn cycles_spent(&self, stale: u64) -> WorkloadError {
        WorkloadError::Budget {
            budget: Budget::Cycles,
            at: "run".into(),
            message: format!(
                "the simulated run (seed {}) went past its budget of {} and was stopped{} (raise the budget with --max-cycles)",
                self.seed,
                count(self.max_cycles, "cycle", "cycles"),
                if stale > 0 { format!("; {}", stale_note(stale)) } else { String::new() }
            ),
        }
    }
}

/// The shader instructions one run has executed, against its budget.
#[derive(Clone, Debug)]
pub(crate) struct InstructionBudget {
    max: u64,
    used: u64,
    /// The run, for the error: "the reference run", "the simulated run (seed 3)".
    run: String,
}

impl InstructionBudget {
    pub(crate) fn new(limits: &RunLimits, run: String) -> Self {
        InstructionBudget { max: limits.max_instructions, used: 0, run }
    }

    /// Instructions executed so far.
    pub(crate) fn used(&self) -> u64 {
        self.used
    }

    /// Counts `n` more instructions; whether the budget is passed.
    pub(crate) fn spend(&mut self, n: u64) -> bool {
        self.used += n;
        self.used > self.max
    }

    /// The error of the budget spent by the dispatch `at`; `stale` reads the run had already
    /// made (a simulated run's loop may run on a stale bound).
    pub(crate) fn spent(&self, at: String, stale: u64) -> WorkloadError {
        let why = if stale == 0 { "a shader that never ends?".to_string() } else { stale_note(stale) };
        WorkloadError::Budget {
            budget: Budget::Instructions,
            at,
            message: format!(
                "{} executed more than its budget of {} (summed over subgroups) and was stopped; {why} (raise the budget with --max-instructions)",
                self.run,
                count(self.max, "shader instruction", "shader instructions")
            ),
        }
    }

    /// A shader error at `at`, or the budget's error for a subgroup stopped at the limit
    /// [`InstructionBudget::subgroup_limit`] gave it (the only limit a subgroup has).
    pub(crate) fn shader_error(&self, e: sim_shader::ShaderError, at: impl FnOnce() -> String, stale: u64) -> WorkloadError {
        match e {
            sim_shader::ShaderError::StepLimit { .. } => self.spent(at(), stale),
            e => WorkloadError::Execution { at: at(), message: e.to_string() },
        }
    }

    /// The instruction limit of each subgroup: one more than the run's budget, so that a lone
    /// subgroup that never ends stops at the budget, and a budget above the interpreter's
    /// default lets a long subgroup run.
    pub(crate) fn subgroup_limit(&self) -> u64 {
        self.max.saturating_add(1)
    }
}

/// Checks every vkFlushMappedMemoryRanges / vkInvalidateMappedMemoryRanges range against the
/// Vulkan rules (nonCoherentAtomSize alignment, bounds), before anything runs.
pub fn check_mapped_ranges(prog: &Program<'_>, profile: &Profile) -> Result<(), WorkloadError> {
    let host = host_side(prog, profile, 0)?;
    for (t, op) in prog.workload.timeline.iter().enumerate() {
        if let HostOp::FlushMappedMemoryRanges(r) | HostOp::InvalidateMappedMemoryRanges(r) = op {
            host.check_ranges(&host_ranges(r)).map_err(|e| WorkloadError::Invalid { at: format!("timeline[{t}]"), message: e.to_string() })?;
        }
    }
    Ok(())
}

/// Checks the workload against the profile's device limits.
pub fn check_limits(prog: &Program<'_>, profile: &Profile) -> Result<(), WorkloadError> {
    let l = &profile.limits;
    let w = prog.workload;
    for (k, cb) in w.command_buffers.iter().enumerate() {
        for i in 0..cb.commands.len() {
            let Some(action) = prog.command_action(k, i) else { continue };
            let at = || format!("command_buffers[{}].commands[{i}] ({})", cb.name, action.vk_name);
            match &action.work {
                Work::Update { data, .. } if data.len() as u64 > l.max_update_buffer_size => {
                    return Err(WorkloadError::Invalid { at: at(), message: format!("{} bytes exceed the limit max_update_buffer_size = {}", data.len(), l.max_update_buffer_size) });
                }
                Work::Dispatch { pipeline, group_count, base_group, bindings, .. } => {
                    for (d, (&count, &max)) in group_count.iter().zip(&l.max_compute_work_group_count).enumerate() {
                        if count > max {
                            return Err(WorkloadError::Invalid { at: at(), message: format!("group_count[{d}] = {count} exceeds maxComputeWorkGroupCount[{d}] = {max}") });
                        }
                        // vkCmdDispatchBase: baseGroup + groupCount must not pass the limit either.
                        let base = u64::from(base_group[d]);
                        if base + u64::from(count) > u64::from(max) {
                            return Err(WorkloadError::Invalid {
                                at: at(),
                                message: format!("base_group[{d}] + group_count[{d}] = {base} + {count} exceeds maxComputeWorkGroupCount[{d}] = {max}"),
                            });
                        }
                    }
                    let p = &w.pipelines[*pipeline].1;
                    if p.workgroup_memory_bytes() > l.max_compute_shared_memory_size {
                        return Err(WorkloadError::Invalid {
                            at: at(),
                            message: format!("the shader's {} bytes of workgroup memory exceed maxComputeSharedMemorySize = {}", p.workgroup_memory_bytes(), l.max_compute_shared_memory_size),
                        });
                    }
                    let size = p.workgroup_size();
                    if size.iter().map(|&s| s as u128).product::<u128>() > l.max_compute_work_group_invocations as u128 {
                        return Err(WorkloadError::Invalid { at: at(), message: format!("workgroup size {size:?} exceeds maxComputeWorkGroupInvocations = {}", l.max_compute_work_group_invocations) });
                    }
                    for (k, b) in bindings.iter().enumerate() {
                        let Some(info) = p.bindings().iter().find(|i| i.group == b.set && i.binding == b.binding) else { continue };
                        let (align, name, max_range) = match info.kind {
                            sim_shader::BindingKind::UniformBuffer => (l.min_uniform_buffer_offset_alignment, "minUniformBufferOffsetAlignment", l.max_uniform_buffer_range),
                            sim_shader::BindingKind::StorageBuffer { .. } => (l.min_storage_buffer_offset_alignment, "minStorageBufferOffsetAlignment", l.max_storage_buffer_range),
                            // A buffer bound where the shader declares an image is refused with the program.
                            _ => continue,
                        };
                        if align > 0 && b.offset % align != 0 {
                            return Err(WorkloadError::Invalid { at: at(), message: format!("bindings[{k}]: offset {} is not a multiple of {name} = {align}", b.offset) });
                        }
                        let buf = &w.buffers[b.buffer];
                        let range = b.range.unwrap_or(buf.size.saturating_sub(b.offset));
                        if range > max_range {
                            return Err(WorkloadError::Invalid { at: at(), message: format!("bindings[{k}]: range {range} exceeds the device's maximum of {max_range}") });
                        }
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subgroup's limit follows the run's budget both ways: below the interpreter's default
    /// (a lone runaway subgroup stops at the budget) and above it (a long subgroup may run).
    #[test]
    fn a_subgroup_may_run_as_long_as_the_budget() {
        for max_instructions in [1, 1000, sim_shader::DEFAULT_MAX_INSTRUCTIONS, 1 << 40, u64::MAX] {
            let b = InstructionBudget::new(&RunLimits { max_instructions, ..RunLimits::default() }, "the run".into());
            assert_eq!(b.subgroup_limit(), max_instructions.saturating_add(1));
        }
    }
}
