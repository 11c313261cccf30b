//! Valid usage Program::new enforces on workloads built in code (traces are checked by the
//! loader first): accesses a barrier's stages do not perform, and events waited on another queue.

use sim_core::api::{BufferMemoryBarrier, Command, DependencyInfo, HostOp, Program, Workload, WorkloadError};
use sim_core::sync::{AccessFlags2 as A, MemoryBarrier2, PipelineStageFlags2 as S};

fn invalid(w: &Workload) -> (String, String) {
    match Program::new(w) {
        Err(WorkloadError::Invalid { at, message }) => (at, message),
        Err(e) => panic!("expected an invalid workload, got {e}"),
        Ok(_) => panic!("expected an invalid workload, got a program"),
    }
}

fn one_command(c: Command) -> Workload {
    let mut w = Workload::new("accesses");
    let _ = w.device_buffer("A", 4096);
    let _ = w.event("e0");
    let cb = w.command_buffer("cb0", vec![c]);
    let f = w.fence("f0");
    w.submit(0, vec![cb], Some(f));
    w.host(HostOp::WaitForFences(vec![f]));
    w
}

#[test]
fn barrier_accesses_need_a_stage_that_performs_them() {
    let top = Command::PipelineBarrier(DependencyInfo::memory(S::TOP_OF_PIPE, A::SHADER_WRITE, S::COMPUTE_SHADER, A::SHADER_READ));
    let (at, message) = invalid(&one_command(top));
    assert_eq!(at, "command_buffers[cb0].commands[0] (vkCmdPipelineBarrier2)");
    assert!(message.starts_with("memory_barriers[0]: VUID-VkMemoryBarrier2-srcAccessMask-03909: src_access_mask has SHADER_WRITE"), "{message}");
    // A buffer barrier of a vkCmdWaitEvents2: COLOR_ATTACHMENT_WRITE at COMPUTE_SHADER.
    let mut dep = DependencyInfo::default();
    dep.buffer_memory_barriers.push(BufferMemoryBarrier {
        barrier: MemoryBarrier2::new(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::COLOR_ATTACHMENT_WRITE),
        buffer: 0,
        offset: 0,
        size: None,
    });
    let (at, message) = invalid(&one_command(Command::WaitEvents { events: vec![0], dependency: dep }));
    assert_eq!(at, "command_buffers[cb0].commands[0] (vkCmdWaitEvents2)");
    assert!(message.starts_with("buffer_memory_barriers[0]: VUID-VkBufferMemoryBarrier2-dstAccessMask-03911"), "{message}");
    // vkCmdSetEvent2: TRANSFER_WRITE at COMPUTE_SHADER.
    let set = Command::SetEvent { event: 0, dependency: DependencyInfo::memory(S::COMPUTE_SHADER, A::TRANSFER_WRITE, S::NONE, A::NONE) };
    let (_, message) = invalid(&one_command(set));
    assert!(message.contains("VUID-VkMemoryBarrier2-srcAccessMask-03915"), "{message}");
    // Valid pairs make a program.
    let ok = Command::PipelineBarrier(DependencyInfo::memory(S::CLEAR | S::TOP_OF_PIPE, A::TRANSFER_WRITE | A::MEMORY_WRITE, S::ALL_COMMANDS, A::SHADER_READ | A::UNIFORM_READ));
    assert!(Program::new(&one_command(ok)).is_ok());
}

/// q0 sets e0; q1 waits on it, submitted after or before the set.
fn two_queues(wait_first: bool, host_set_between: bool) -> Workload {
    let mut w = Workload::new("events");
    let q1 = w.queue("q1");
    let e = w.event("e0");
    let set = w.command_buffer("setter", vec![Command::SetEvent { event: e, dependency: DependencyInfo::memory(S::ALL_COMMANDS, A::NONE, S::NONE, A::NONE) }]);
    let wait = w.command_buffer("waiter", vec![Command::WaitEvents { events: vec![e], dependency: DependencyInfo::memory(S::ALL_COMMANDS, A::NONE, S::ALL_COMMANDS, A::NONE) }]);
    let (f0, f1) = (w.fence("f0"), w.fence("f1"));
    if wait_first {
        w.submit(q1, vec![wait], Some(f1));
        w.submit(0, vec![set], Some(f0));
    } else {
        w.submit(0, vec![set], Some(f0));
        if host_set_between {
            w.host(HostOp::WaitForFences(vec![f0]));
            w.host(HostOp::SetEvent(e));
        }
        w.submit(q1, vec![wait], Some(f1));
    }
    w.host(HostOp::WaitForFences(vec![f0, f1]));
    w
}

#[test]
fn events_are_not_waited_on_another_queue() {
    let (at, message) = invalid(&two_queues(false, false));
    assert_eq!(at, "timeline[1]");
    assert!(
        message.starts_with("vkCmdWaitEvents2 in waiter[0], submitted to queue `q1`, waits on event `e0`, which vkCmdSetEvent2 in setter[0] sets on queue `q0` (submitted at timeline[0])"),
        "{message}"
    );
    let (at, message) = invalid(&two_queues(true, false));
    assert_eq!(at, "timeline[0]");
    assert!(message.contains("(submitted later at timeline[1])"), "{message}");
    // A host vkSetEvent of the event q0 signalled already has no effect: the wait still
    // waits on q0's signal.
    let (at, _) = invalid(&two_queues(false, true));
    assert_eq!(at, "timeline[3]");
}
