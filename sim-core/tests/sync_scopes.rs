//! Scope computation: meta stages, expansion to earlier/later stages, access restriction.

use sim_core::sync::{
    AccessFlags2 as A, MemoryBarrier2, PipelineStageFlags2 as S, PipelineType, StageAccess, all_device_stages, all_usages,
    first_access_scope, first_scope_stages, second_access_scope, second_scope_stages,
};

fn names(set: sim_core::sync::UsageSet) -> Vec<String> {
    set.iter().map(|u| u.name()).collect()
}

#[test]
fn first_scopes_expand_to_earlier_stages() {
    let s = first_scope_stages(S::FRAGMENT_SHADER, Some(PipelineType::Graphics));
    assert!(s.contains(S::VERTEX_SHADER | S::DRAW_INDIRECT | S::INDEX_INPUT | S::EARLY_FRAGMENT_TESTS));
    assert!(!s.intersects(S::LATE_FRAGMENT_TESTS | S::COLOR_ATTACHMENT_OUTPUT | S::COMPUTE_SHADER));
    let c = first_scope_stages(S::COMPUTE_SHADER, None);
    assert_eq!(c, S::CONDITIONAL_RENDERING | S::DRAW_INDIRECT | S::COMPUTE_SHADER);
}

#[test]
fn second_scopes_expand_to_later_stages() {
    let s = second_scope_stages(S::VERTEX_SHADER, Some(PipelineType::Graphics));
    assert!(s.contains(S::FRAGMENT_SHADER | S::COLOR_ATTACHMENT_OUTPUT | S::GEOMETRY_SHADER));
    assert!(!s.intersects(S::DRAW_INDIRECT | S::VERTEX_ATTRIBUTE_INPUT));
    // DRAW_INDIRECT precedes compute shaders too.
    let d = second_scope_stages(S::DRAW_INDIRECT, None);
    assert!(d.contains(S::COMPUTE_SHADER | S::FRAGMENT_SHADER | S::MESH_SHADER));
    assert!(!d.intersects(S::COPY | S::HOST));
    // Transfer stages are not ordered against each other.
    assert_eq!(second_scope_stages(S::COPY, None), S::COPY);
}

#[test]
fn top_of_pipe_in_a_second_scope_is_every_stage_with_no_access() {
    assert_eq!(second_scope_stages(S::TOP_OF_PIPE, None), all_device_stages());
    assert!(second_access_scope(S::TOP_OF_PIPE, A::MEMORY_READ | A::MEMORY_WRITE).is_empty());
    // ...and nothing at all in a first scope.
    assert_eq!(first_scope_stages(S::TOP_OF_PIPE, None), S::NONE);
    assert!(first_access_scope(S::TOP_OF_PIPE, A::MEMORY_WRITE).is_empty());
}

#[test]
fn bottom_of_pipe_in_a_first_scope_is_every_stage_with_no_access() {
    assert_eq!(first_scope_stages(S::BOTTOM_OF_PIPE, None), all_device_stages());
    assert!(first_access_scope(S::BOTTOM_OF_PIPE, A::MEMORY_WRITE).is_empty());
    assert_eq!(second_scope_stages(S::BOTTOM_OF_PIPE, None), S::NONE);
}

#[test]
fn all_commands_substitutes_every_device_stage_but_not_host() {
    let s = first_scope_stages(S::ALL_COMMANDS, None);
    assert!(s.contains(S::COMPUTE_SHADER | S::COPY | S::CLEAR | S::COLOR_ATTACHMENT_OUTPUT | S::INDEX_INPUT));
    assert!(!s.contains(S::HOST));
    assert!(!s.intersects(S::ALL_COMMANDS | S::ALL_GRAPHICS | S::ALL_TRANSFER | S::VERTEX_INPUT));
    // MEMORY_WRITE at ALL_COMMANDS: every device write, and only writes.
    let w = first_access_scope(S::ALL_COMMANDS, A::MEMORY_WRITE | A::MEMORY_READ);
    let n = names(w);
    assert!(n.contains(&"COMPUTE_SHADER_SHADER_STORAGE_WRITE".to_string()), "{n:?}");
    assert!(n.contains(&"CLEAR_TRANSFER_WRITE".to_string()));
    assert!(n.contains(&"COLOR_ATTACHMENT_OUTPUT_COLOR_ATTACHMENT_WRITE".to_string()));
    assert!(!n.iter().any(|x| x.contains("READ") || x.starts_with("HOST")), "{n:?}");
    // Restricted to a pipeline type, ALL_COMMANDS is that type's stages.
    assert_eq!(second_scope_stages(S::ALL_COMMANDS, Some(PipelineType::Compute)), PipelineType::Compute.stages());
}

#[test]
fn all_graphics_and_meta_stages_substitute_first() {
    let g = second_access_scope(S::ALL_GRAPHICS, A::SHADER_READ);
    assert!(g.iter().any(|u| u.stage() == S::FRAGMENT_SHADER));
    assert!(!g.iter().any(|u| u.stage() == S::COMPUTE_SHADER));
    let v = second_access_scope(S::VERTEX_INPUT, A::MEMORY_READ);
    assert_eq!(names(v), vec!["INDEX_INPUT_INDEX_READ", "VERTEX_ATTRIBUTE_INPUT_VERTEX_ATTRIBUTE_READ"]);
    let t = first_access_scope(S::parse("TRANSFER").unwrap(), A::TRANSFER_WRITE);
    assert_eq!(names(t).len(), 4, "{t}");
    let p = second_access_scope(S::PRE_RASTERIZATION_SHADERS, A::UNIFORM_READ);
    assert!(p.iter().any(|u| u.stage() == S::GEOMETRY_SHADER));
    assert!(!p.iter().any(|u| u.stage() == S::FRAGMENT_SHADER));
}

#[test]
fn an_access_not_legal_for_its_stage_is_dropped() {
    assert!(second_access_scope(S::COMPUTE_SHADER, A::COLOR_ATTACHMENT_READ).is_empty());
    assert!(first_access_scope(S::COPY, A::SHADER_WRITE).is_empty());
    // Only the legal part of a mixed mask survives.
    let s = second_access_scope(S::COMPUTE_SHADER, A::COLOR_ATTACHMENT_READ | A::UNIFORM_READ);
    assert_eq!(names(s), vec!["COMPUTE_SHADER_UNIFORM_READ"]);
    // CLEAR never reads.
    assert!(second_access_scope(S::CLEAR, A::TRANSFER_READ).is_empty());
}

#[test]
fn umbrellas_split_into_their_synchronization2_parts() {
    let r = second_access_scope(S::COMPUTE_SHADER, A::SHADER_READ);
    assert_eq!(names(r), vec!["COMPUTE_SHADER_SHADER_SAMPLED_READ", "COMPUTE_SHADER_SHADER_STORAGE_READ"]);
    let w = first_access_scope(S::COMPUTE_SHADER, A::SHADER_WRITE);
    assert_eq!(names(w), vec!["COMPUTE_SHADER_SHADER_STORAGE_WRITE"]);
    let m = second_access_scope(S::FRAGMENT_SHADER, A::MEMORY_READ);
    assert!(names(m).contains(&"FRAGMENT_SHADER_INPUT_ATTACHMENT_READ".to_string()));
    assert!(names(m).contains(&"FRAGMENT_SHADER_UNIFORM_READ".to_string()));
    assert!(!names(m).iter().any(|n| n.ends_with("WRITE")));
}

#[test]
fn reads_in_a_first_scope_make_nothing_available() {
    assert!(first_access_scope(S::COMPUTE_SHADER, A::SHADER_READ | A::UNIFORM_READ).is_empty());
    let b = MemoryBarrier2::new(S::COPY, A::TRANSFER_READ | A::TRANSFER_WRITE, S::NONE, A::NONE);
    assert_eq!(names(b.first_usages()), vec!["COPY_TRANSFER_WRITE"]);
}

#[test]
fn usages_are_named_as_the_seed_names_them_and_parse_back() {
    let u = StageAccess::new(S::COMPUTE_SHADER, A::SHADER_STORAGE_WRITE).unwrap();
    assert_eq!(u.name(), "COMPUTE_SHADER_SHADER_STORAGE_WRITE");
    assert_eq!(StageAccess::parse("COPY_TRANSFER_READ").unwrap().stage(), S::COPY);
    assert!(StageAccess::new(S::COMPUTE_SHADER, A::COLOR_ATTACHMENT_WRITE).is_none());
    assert!(StageAccess::new(S::COMPUTE_SHADER, A::SHADER_WRITE).is_none(), "umbrellas are not usages");
    let all: Vec<_> = all_usages().collect();
    assert!(all.len() > 50 && all.len() < 128);
    for (i, u) in all.iter().enumerate() {
        assert_eq!(u.index(), i);
        assert_eq!(StageAccess::parse(&u.name()), Some(*u));
    }
}

#[test]
fn memory_barrier_serde_uses_the_trace_format_names() {
    let b: MemoryBarrier2 = serde_json::from_str(
        r#"{"src_stage_mask": "CLEAR", "src_access_mask": "TRANSFER_WRITE",
            "dst_stage_mask": ["COMPUTE_SHADER"], "dst_access_mask": "VK_ACCESS_2_SHADER_STORAGE_READ_BIT"}"#,
    )
    .unwrap();
    assert_eq!(b, MemoryBarrier2::new(S::CLEAR, A::TRANSFER_WRITE, S::COMPUTE_SHADER, A::SHADER_STORAGE_READ));
    let json = serde_json::to_string(&b).unwrap();
    assert!(json.contains("\"dst_access_mask\":\"SHADER_STORAGE_READ\""), "{json}");
    assert!(serde_json::from_str::<MemoryBarrier2>(r#"{"src_stage_mask": "CLEAR", "bogus": 1}"#).is_err());
}
