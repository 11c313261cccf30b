//! Bad profiles fail with `file:line:col: field: what was wrong` messages.

use sim_core::profile::Profile;

fn err(text: &str) -> String {
    match Profile::from_toml_str(text, "bad.toml") {
        Ok(_) => panic!("profile was accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn assert_located(text: &str, prefix: &str, contains: &[&str]) {
    let msg = err(text);
    assert!(msg.starts_with(prefix), "expected prefix `{prefix}`, got: {msg}");
    for c in contains {
        assert!(msg.contains(c), "expected `{c}` in: {msg}");
    }
}

#[test]
fn unknown_field() {
    assert_located("[machine.cu]\nshared_memory_bytes = 1024\nl1_size = 5\n", "bad.toml:3:1: machine.cu.l1_size: ", &["unknown field `l1_size`"]);
}

#[test]
fn unknown_field_in_a_cache_spec() {
    assert_located("[machine.l2.cache]\nline_byts = 64\n", "bad.toml:2:1: machine.l2.cache.line_byts: ", &["unknown field `line_byts`"]);
}

#[test]
fn wrong_type() {
    assert_located("[machine]\ncompute_units = \"eight\"\n", "bad.toml:2:17: machine.compute_units: ", &["invalid type"]);
}

#[test]
fn line_size_not_a_power_of_two() {
    assert_located(
        "[machine.l2.cache]\nsize_bytes = 262144\nline_bytes = 48\n",
        "bad.toml:3:14: machine.l2.cache.line_bytes: ",
        &["48 is not a power of two"],
    );
}

#[test]
fn absurd_cache_size() {
    assert_located(
        "[machine.cu.l1]\nsize_bytes = 1099511627776\nline_bytes = 64\nways = 4\nwrite_policy = \"write-through-allocate\"\n",
        "bad.toml:2:14: machine.cu.l1.size_bytes: ",
        &["1099511627776"],
    );
}

#[test]
fn absurd_compute_unit_count() {
    assert_located("[machine]\ncompute_units = 100000\n", "bad.toml:2:17: machine.compute_units: ", &["out of range", "1 to 1024"]);
}

#[test]
fn texture_cache_that_can_be_written() {
    assert_located(
        "[machine.cu.texture_cache]\nwrite_policy = \"write-back-line-dirty\"\n",
        "bad.toml:2:16: machine.cu.texture_cache.write_policy: ",
        &["read-only"],
    );
}

#[test]
fn unknown_cache_name_in_a_barrier_op() {
    assert_located(
        "[[barriers.rows]]\naccess = \"SHADER_READ\"\ndst = [\"invalidate L1\", \"invalidate L3\"]\n",
        "bad.toml:3:25: barriers.rows[0].dst[1]: ",
        &["unknown cache `L3`", "expected one of ROP, L1, T$, U$, L2"],
    );
}

#[test]
fn a_barrier_op_on_the_host_cache() {
    assert_located(
        "[[barriers.rows]]\naccess = \"HOST_WRITE\"\nsrc = [\"flush HOST\"]\n",
        "bad.toml:3:8: barriers.rows[0].src[0]: ",
        &["vkFlushMappedMemoryRanges", "cannot name it"],
    );
}

#[test]
fn unknown_action_in_a_barrier_op() {
    assert_located(
        "[[barriers.rows]]\naccess = \"SHADER_READ\"\ndst = [\"scrub L1\"]\n",
        "bad.toml:3:8: barriers.rows[0].dst[0]: ",
        &["unknown action `scrub`", "flush"],
    );
}

#[test]
fn unknown_access_name() {
    assert_located(
        "[[barriers.rows]]\naccess = \"SHADER_REED\"\ndst = [\"invalidate L1\"]\n",
        "bad.toml:2:10: barriers.rows[0].access: ",
        &["unknown access flag `SHADER_REED`", "did you mean SHADER_READ"],
    );
}

#[test]
fn unknown_stage_name() {
    assert_located(
        "[[barriers.rows]]\naccess = \"SHADER_READ\"\nstages = \"COMPUTE|FRAGMENT_SHADER\"\ndst = [\"invalidate L1\"]\n",
        "bad.toml:3:10: barriers.rows[0].stages: ",
        &["unknown pipeline stage `COMPUTE`"],
    );
}

#[test]
fn invalidating_a_cache_the_machine_does_not_have() {
    assert_located(
        "[machine.cu]\ntexture_cache = \"none\"\n\n[[barriers.rows]]\naccess = \"SHADER_READ\"\ndst = [\"invalidate L1, T$\"]\n",
        "bad.toml:6:8: barriers.rows[0].dst[0]: ",
        &["names T$", "machine.cu.texture_cache = \"none\""],
    );
}

#[test]
fn base_table_names_a_cache_the_override_removed() {
    // seed-l2's rows invalidate U$; removing the uniform cache without replacing the rows is
    // caught, and the message says the rows came from the base.
    assert_located(
        "base = \"seed-l2\"\n[machine.cu]\nuniform_cache = \"none\"\n",
        "bad.toml:1:8: barriers.rows[2].dst[0]: ",
        &["U$", "inherited from base `seed-l2`"],
    );
}

#[test]
fn src_operations_on_a_read_only_row() {
    assert_located(
        "[[barriers.rows]]\naccess = \"UNIFORM_READ\"\nsrc = [\"flush L2\"]\n",
        "bad.toml:3:7: barriers.rows[0].src: ",
        &["reads in a first scope make nothing available"],
    );
}

#[test]
fn a_row_that_never_applies() {
    assert_located(
        "[[barriers.rows]]\naccess = \"COLOR_ATTACHMENT_WRITE\"\nstages = \"COMPUTE_SHADER\"\nsrc = [\"flush ROP\"]\n",
        "bad.toml:3:10: barriers.rows[0].stages: ",
        &["never applies"],
    );
}

#[test]
fn non_coherent_atom_size_not_a_power_of_two() {
    assert_located("[limits]\nnon_coherent_atom_size = 96\n", "bad.toml:2:26: limits.non_coherent_atom_size: ", &["96 is not a power of two"]);
}

#[test]
fn shared_memory_limit_beyond_the_machine() {
    assert_located(
        "[machine.cu]\nshared_memory_bytes = 16384\n[limits]\nmax_compute_shared_memory_size = 32768\n",
        "bad.toml:4:34: limits.max_compute_shared_memory_size: ",
        &["32768"],
    );
}

#[test]
fn unknown_base() {
    assert_located("base = \"seed-l3\"\n", "bad.toml:1:8: base: ", &["`seed-l3` is neither a built-in profile"]);
}

#[test]
fn syntax_error() {
    assert_located("[machine\ncompute_units = 8\n", "bad.toml:1:", &[]);
}

#[test]
fn unknown_enum_value() {
    assert_located("[machine.transfer]\npath = \"through-l3\"\n", "bad.toml:2:8: machine.transfer.path: ", &["through-l2", "direct-to-vram"]);
}

#[test]
fn missing_file_and_unknown_name() {
    let e = Profile::load("/nonexistent/profile.toml").unwrap_err().to_string();
    assert!(e.contains("not a built-in profile (seed-l2, seed-vram, ideal, nvidia-like, radv-gfx10, radv-gfx9, turnip-a6xx, anv-gen12) and no such file"), "{e}");
}

#[test]
fn nothing_panics_on_garbage() {
    for text in ["", "=", "[[[", "base = 5", "machine = 3", "[barriers]\nrows = 7", "[[barriers.rows]]\n", "[limits]\nmax_compute_work_group_count = [0, 1, 1]"] {
        let _ = Profile::from_toml_str(text, "g.toml");
    }
    // An empty file is seed-l2 under another name.
    let p = Profile::from_toml_str("", "mine.toml").unwrap();
    assert_eq!(p.name, "mine");
    assert_eq!(p.barriers, Profile::builtin("seed-l2").unwrap().barriers);
}

#[test]
fn caches_too_large_in_all() {
    // Each L1 fits alone (1.3 GiB of host memory with its tags and per-line state); eight do not.
    assert_located("[machine]\ncompute_units = 8\n\n[machine.cu.l1]\nsize_bytes = 536870912\n", "bad.toml:1:2: machine: ", &["11074538240 bytes of host memory in all", "cap of 2147483648"]);
}

#[test]
fn subgroup_wider_than_the_interpreter() {
    assert_located("[machine.cu]\nsubgroup_size = 128\n", "bad.toml:2:17: machine.cu.subgroup_size: ", &["between 1 and 64"]);
}

#[test]
fn a_driver_operation_on_a_cache_the_machine_does_not_have() {
    assert_located(
        "base = \"seed-l2\"\n[machine.cu]\nuniform_cache = \"none\"\n\n[[barriers.rows]]\naccess = \"UNIFORM_READ\"\ndst = []\n\n[barriers]\nsubmit = [\"invalidate U$\"]\n",
        "bad.toml:10:11: barriers.submit[0]: ",
        &["names U$, which this machine does not have", "machine.cu.uniform_cache = \"none\""],
    );
}

#[test]
fn transfers_writing_through_a_line_dirty_rop_cache() {
    assert_located(
        "[machine.transfer]\nshader_min_bytes = 4096\nshader_writes = \"rop\"\n\n[machine.rop.tile_cache]\nwrite_policy = \"write-back-line-dirty\"\n",
        "bad.toml:3:17: machine.transfer.shader_writes: ",
        &["transfers write through the ROP tile cache", "write-back-byte-mask"],
    );
}

#[test]
fn a_layout_transition_with_an_unknown_layout() {
    assert_located(
        "[[barriers.layout_transitions]]\naspect = \"color\"\nfrom = [\"COLOR_OPTIMAL\"]\nto = [\"GENERAL\"]\nwork = [\"dcc-decompress\"]\n",
        "bad.toml:3:9: barriers.layout_transitions[0].from[0]: ",
        &["unknown variant `COLOR_OPTIMAL`", "SHADER_READ_ONLY_OPTIMAL"],
    );
}

#[test]
fn a_layout_transition_that_does_nothing_or_names_a_missing_cache() {
    assert_located(
        "[[barriers.layout_transitions]]\naspect = \"depth\"\nfrom = [\"UNDEFINED\"]\nto = [\"*\"]\n",
        "bad.toml:",
        &["barriers.layout_transitions[0].work: the row does nothing"],
    );
    assert_located(
        "base = \"none\"\n[machine.rop]\ntile_cache = \"none\"\n\n[[barriers.layout_transitions]]\naspect = \"color\"\nfrom = [\"UNDEFINED\"]\nto = [\"*\"]\nops = [\"flush ROP\"]\n",
        "bad.toml:9:8: barriers.layout_transitions[0].ops[0]: ",
        &["names ROP, which this machine does not have"],
    );
}

#[test]
fn compression_that_cannot_be() {
    assert_located(
        "base = \"none\"\n[machine.rop.compression]\nmetadata = \"per-page\"\n",
        "bad.toml:3:12: machine.rop.compression.metadata: ",
        &["buffer_image_granularity must be at least 65536, not 1024"],
    );
    assert_located(
        "[machine.rop.compression]\nmetadata = \"per-image\"\ndecoders = [\"rop\"]\nclear_decoders = [\"rop\", \"sampled\"]\n",
        "bad.toml:4:18: machine.rop.compression.clear_decoders: ",
        &["\"sampled\" reads fast-cleared tiles but is not among the decoders"],
    );
    assert_located(
        "[machine.rop.compression]\nclear_values = [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]]\n",
        "bad.toml:2:16: machine.rop.compression.clear_values: ",
        &["13 fast-clear values: a tile's 4 bits of state have room for 12"],
    );
    assert_located("[machine.rop.compression]\nmetadata = \"per-tile\"\n", "bad.toml:2:12: machine.rop.compression.metadata: ", &["unknown variant `per-tile`"]);
}
