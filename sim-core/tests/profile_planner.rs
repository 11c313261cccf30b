//! The planner's canonical order, merging, range handling, implicit synchronization, and
//! profile loading (built-ins, overrides, round trips).

use sim_core::profile::{CacheAction, CacheName, OpRange, Profile, plan_barrier, plan_queue_submit, plan_semaphore_signal, plan_semaphore_wait};
use sim_core::sync::{AccessFlags2 as A, MemoryBarrier2, PipelineStageFlags2 as S, Scope};

fn ops(profile: &Profile, b: MemoryBarrier2) -> Vec<(Scope, CacheName, CacheAction)> {
    plan_barrier(profile, &b, None).into_iter().map(|o| (o.scope, o.cache, o.action)).collect()
}

#[test]
fn first_scope_comes_first_and_upper_caches_before_l2() {
    let p = Profile::builtin("seed-vram").unwrap();
    let b = MemoryBarrier2::new(S::COMPUTE_SHADER, A::SHADER_WRITE, S::FRAGMENT_SHADER, A::SHADER_READ | A::UNIFORM_READ);
    assert_eq!(
        ops(&p, b),
        vec![
            (Scope::First, CacheName::L2, CacheAction::Flush),
            (Scope::Second, CacheName::L1, CacheAction::Invalidate),
            (Scope::Second, CacheName::Texture, CacheAction::Invalidate),
            (Scope::Second, CacheName::Uniform, CacheAction::Invalidate),
            (Scope::Second, CacheName::L2, CacheAction::Invalidate),
        ]
    );
}

#[test]
fn flush_and_invalidate_of_one_cache_merge_and_duplicates_collapse() {
    let p = Profile::builtin("seed-l2").unwrap();
    // dst COLOR_ATTACHMENT_WRITE flushes L2; dst SHADER_WRITE+TRANSFER_WRITE... use a src side
    // that both invalidates L2 (colour write) and one that would flush it: none in seed-l2, so
    // build a profile that has both.
    let text = r#"
        [[barriers.rows]]
        access = "SHADER_WRITE"
        src = ["flush L2", "flush T$"]
        [[barriers.rows]]
        access = "TRANSFER_WRITE"
        src = ["invalidate L2", "flush L2"]
    "#;
    let custom = Profile::from_toml_str(text, "merge.toml").unwrap();
    let b = MemoryBarrier2::new(S::COMPUTE_SHADER | S::COPY, A::MEMORY_WRITE, S::NONE, A::NONE);
    // One L2 operation, flush-invalidate; the read-only T$ flush is free and dropped.
    assert_eq!(ops(&custom, b), vec![(Scope::First, CacheName::L2, CacheAction::FlushInvalidate)]);
    // MEMORY_WRITE at ALL_COMMANDS in seed-l2: ROP flush (colour and depth rows merged), L2 invalidate.
    assert_eq!(
        ops(&p, MemoryBarrier2::semaphore_signal()),
        vec![(Scope::First, CacheName::Rop, CacheAction::Flush), (Scope::First, CacheName::L2, CacheAction::Invalidate)]
    );
}

#[test]
fn ranges_limit_operations_only_when_the_profile_says_so() {
    let whole = Profile::from_toml_str("base = \"seed-vram\"\n[barriers]\nrange = \"whole-cache\"\n", "w.toml").unwrap();
    let b = MemoryBarrier2::new(S::COMPUTE_SHADER, A::SHADER_WRITE, S::COMPUTE_SHADER, A::SHADER_READ);
    assert!(plan_barrier(&whole, &b, Some((4096, 256))).iter().all(|o| o.range == OpRange::WholeCache));
    assert!(plan_barrier(&Profile::builtin("seed-l2").unwrap(), &b, Some((4096, 256))).iter().all(|o| o.range == OpRange::WholeCache));
    // seed-vram, the default machine, walks a buffer barrier's lines only.
    let ranged = Profile::builtin("seed-vram").unwrap();
    // The rows survive: only `range` was overridden inside [barriers].
    assert_eq!(ranged.barriers.rows, whole.barriers.rows);
    let planned = plan_barrier(&ranged, &b, Some((4096, 256)));
    assert!(!planned.is_empty());
    assert!(planned.iter().all(|o| o.range == OpRange::Lines { addr: 4096, size: 256 }));
    assert!(plan_barrier(&ranged, &b, None).iter().all(|o| o.range == OpRange::WholeCache));
}

#[test]
fn implicit_synchronization_goes_through_the_table() {
    let l2 = Profile::builtin("seed-l2").unwrap();
    // vkQueueSubmit: HOST_WRITE's src (invalidate L2), then every device read's dst.
    let submit: Vec<_> = plan_queue_submit(&l2).into_iter().map(|o| (o.scope, o.cache, o.action)).collect();
    assert_eq!(submit[0], (Scope::First, CacheName::L2, CacheAction::Invalidate));
    for c in [CacheName::Rop, CacheName::L1, CacheName::Texture, CacheName::Uniform] {
        assert!(submit.iter().any(|(s, cache, _)| *s == Scope::Second && *cache == c), "{c} in {submit:?}");
    }
    // A wait at COMPUTE_SHADER only touches compute's caches.
    let wait: Vec<_> = plan_semaphore_wait(&l2, S::COMPUTE_SHADER).into_iter().map(|o| o.cache).collect();
    assert_eq!(wait, vec![CacheName::L1, CacheName::Texture, CacheName::Uniform]);
    // seed-vram: a signal flushes L2 (shader writes) and ROPs.
    let vram = Profile::builtin("seed-vram").unwrap();
    let sig: Vec<_> = plan_semaphore_signal(&vram).into_iter().map(|o| (o.cache, o.action)).collect();
    assert_eq!(sig, vec![(CacheName::Rop, CacheAction::Flush), (CacheName::L2, CacheAction::Flush)]);
}

#[test]
fn the_ideal_profile_has_no_caches_and_plans_nothing() {
    let p = Profile::builtin("ideal").unwrap();
    for c in CacheName::ALL {
        assert!(p.cache_spec(c).is_none(), "{c}");
    }
    assert_eq!(p.machine.host.write_combining_buffers, 0);
    let every = MemoryBarrier2::new(S::ALL_COMMANDS | S::HOST, A::MEMORY_WRITE, S::ALL_COMMANDS | S::HOST, A::MEMORY_READ | A::MEMORY_WRITE);
    assert!(plan_barrier(&p, &every, None).is_empty());
}

#[test]
fn builtins_load_and_round_trip_through_toml() {
    assert_eq!(Profile::builtin_names(), vec!["seed-l2", "seed-vram", "ideal", "nvidia-like", "radv-gfx10", "radv-gfx9", "turnip-a6xx", "anv-gen12"]);
    for name in Profile::builtin_names() {
        let p = Profile::builtin(name).unwrap();
        assert_eq!(p.name, name);
        assert!(!p.description.is_empty());
        let text = p.to_toml_string();
        let back = Profile::from_toml_str(&text, "roundtrip.toml").unwrap();
        assert_eq!(back.machine, p.machine, "{name}");
        assert_eq!(back.barriers, p.barriers, "{name}");
        assert_eq!(back.limits, p.limits);
        assert_eq!(Profile::load(name).unwrap(), p);
    }
    assert!(Profile::builtin("seed-l3").is_none());
}

#[test]
fn seed_l2_defaults_are_the_documented_ones() {
    let p = Profile::builtin("seed-l2").unwrap();
    assert_eq!(p.machine.compute_units, 8);
    assert_eq!(p.limits.min_storage_buffer_offset_alignment, 256);
    assert_eq!(p.limits.max_uniform_buffer_range, 65536);
    assert_eq!(p.limits.non_coherent_atom_size, 64);
    assert_eq!(p.limits.max_compute_work_group_count, [65535; 3]);
    assert_eq!(p.limits.max_update_buffer_size, 65536);
    assert_eq!(p.machine.host.write_combining_buffer_bytes, 64);
    assert_eq!(p.machine.host.cache.as_ref().unwrap().line_bytes, 64);
    // The explicit built-in file agrees with the Rust defaults for the machine and limits, but
    // for compression and bufferImageGranularity: the seed's machine compresses, keeping
    // metadata per 64 KiB page (the default compresses nothing, and its granularity, 1024, is
    // a measured NVIDIA H100's).
    let d = Profile::default();
    assert_eq!(p.machine.rop.compression.metadata, sim_core::profile::MetadataPlacement::PerPage);
    let mut without = p.machine.clone();
    without.rop.compression = d.machine.rop.compression.clone();
    assert_eq!(without, d.machine);
    assert_eq!(p.timing, d.timing);
    assert_eq!(p.limits.buffer_image_granularity, 65536);
    assert_eq!(sim_core::profile::Limits { buffer_image_granularity: d.limits.buffer_image_granularity, ..p.limits.clone() }, d.limits);
}

#[test]
fn overrides_merge_deeply_and_rows_replace_as_a_whole() {
    let text = r#"
        name = "big-l2"
        base = "seed-l2"
        [machine.l2.cache]
        size_bytes = 1048576
        [machine.cu]
        l1 = "none"
        [[barriers.rows]]
        access = "SHADER_READ"
        dst = ["invalidate T$"]
    "#;
    let p = Profile::from_toml_str(text, "big.toml").unwrap();
    let base = Profile::builtin("seed-l2").unwrap();
    assert_eq!(p.name, "big-l2");
    assert_eq!(p.base.as_deref(), Some("seed-l2"));
    let l2 = p.machine.l2.cache.as_ref().unwrap();
    assert_eq!(l2.size_bytes, 1 << 20);
    assert_eq!(l2.line_bytes, 64, "untouched L2 fields come from the base");
    assert_eq!(l2.ways, 16);
    assert!(p.machine.cu.l1.is_none());
    assert_eq!(p.machine.cu.texture_cache, base.machine.cu.texture_cache);
    assert_eq!(p.barriers.rows.len(), 1);
    assert_eq!(p.timing, base.timing);
}

#[test]
fn a_base_may_be_a_file_next_to_the_profile() {
    let dir = std::env::temp_dir().join(format!("gpusim-profile-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("parent.toml"), "base = \"seed-vram\"\n[machine]\ncompute_units = 2\n").unwrap();
    std::fs::write(dir.join("child.toml"), "base = \"parent.toml\"\n[timing]\nl2_hit_cycles = 99\n").unwrap();
    std::fs::write(dir.join("loop.toml"), "base = \"loop.toml\"\n").unwrap();
    let p = Profile::load(dir.join("child.toml").to_str().unwrap()).unwrap();
    assert_eq!(p.machine.compute_units, 2);
    assert_eq!(p.timing.l2_hit_cycles, 99);
    assert_eq!(p.barriers, Profile::builtin("seed-vram").unwrap().barriers);
    let e = Profile::load(dir.join("loop.toml").to_str().unwrap()).unwrap_err().to_string();
    assert!(e.contains("nest more than"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
