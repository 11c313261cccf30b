//! The valid usage that depends on what a command buffer recorded before a command (a draw
//! outside a render pass instance, a subpass past the last, a fetch outside its buffer, ...):
//! each refused with its VUID at the command, exit status 2, nothing run. The traces are
//! `examples/graphics/render-to-texture-correct.json` with one thing changed.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

/// Runs `gpusim run` on `examples/graphics/EXAMPLE` changed by `change`; its exit status and
/// standard error.
fn run_example_changed(example: &str, name: &str, change: impl Fn(&mut Value)) -> (Option<i32>, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut t: Value = serde_json::from_str(&std::fs::read_to_string(root.join("examples/graphics").join(example)).expect("example")).expect("json");
    change(&mut t);
    let dir = std::env::temp_dir().join(format!("gpusim-graphics-vu-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("t.json");
    std::fs::write(&path, t.to_string()).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["run", path.to_str().unwrap()]).output().expect("gpusim runs");
    let _ = std::fs::remove_dir_all(&dir);
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// [`run_example_changed`] on `render-to-texture-correct.json`, `change` given its commands.
fn run_changed(name: &str, change: impl Fn(&mut Vec<Value>)) -> (Option<i32>, String) {
    run_example_changed("render-to-texture-correct.json", name, |t| change(t["command_buffers"][0]["commands"].as_array_mut().expect("commands")))
}

/// A case: its name, the change to the commands, the VUID and the place the error names.
type Case = (&'static str, Box<dyn Fn(&mut Vec<Value>)>, &'static str, &'static str);

fn index_of(c: &[Value], cmd: &str) -> usize {
    c.iter().position(|x| x["cmd"] == cmd).unwrap_or_else(|| panic!("no {cmd}"))
}

#[test]
fn recording_state_errors_name_their_vuids() {
    let cases: Vec<Case> = vec![
        (
            "draw_outside",
            Box::new(|c: &mut Vec<Value>| {
                let d = c.remove(index_of(c, "draw"));
                c.insert(0, d);
            }),
            "VUID-vkCmdDraw-renderpass",
            "commands[0]",
        ),
        ("no_end", Box::new(|c: &mut Vec<Value>| drop(c.remove(index_of(c, "end_render_pass")))), "VUID-vkCmdDispatch-renderpass", "commands[7]"),
        ("next_subpass_past_the_last", Box::new(|c: &mut Vec<Value>| c.insert(index_of(c, "end_render_pass"), json!({"cmd": "next_subpass"}))), "VUID-vkCmdNextSubpass2-None-03102", "commands[7]"),
        (
            "barrier_inside",
            Box::new(|c: &mut Vec<Value>| {
                let b = json!({"cmd": "pipeline_barrier", "memory_barriers": [{"src_stage_mask": "COLOR_ATTACHMENT_OUTPUT", "src_access_mask": "COLOR_ATTACHMENT_WRITE", "dst_stage_mask": "FRAGMENT_SHADER", "dst_access_mask": "SHADER_SAMPLED_READ"}]});
                c.insert(index_of(c, "end_render_pass"), b);
            }),
            "VUID-vkCmdPipelineBarrier2-None-07889",
            "commands[7]",
        ),
        ("no_vertex_buffer", Box::new(|c: &mut Vec<Value>| drop(c.remove(index_of(c, "bind_vertex_buffers")))), "VUID-vkCmdDraw-None-04007", "commands[5]"),
        (
            "fetch_past_the_buffer",
            Box::new(|c: &mut Vec<Value>| {
                let k = index_of(c, "draw");
                c[k]["vertex_count"] = json!(300);
            }),
            "VUID-vkCmdDraw-None-02721",
            "commands[6]",
        ),
        (
            "end_rendering_for_a_render_pass",
            Box::new(|c: &mut Vec<Value>| {
                let k = index_of(c, "end_render_pass");
                c[k] = json!({"cmd": "end_rendering"});
            }),
            "VUID-vkCmdEndRendering-None-06161",
            "commands[7]",
        ),
    ];
    let mut failures = Vec::new();
    for (name, change, vuid, at) in cases {
        let (code, stderr) = run_changed(name, change);
        if code != Some(2) || !stderr.contains(vuid) || !stderr.contains(at) || stderr.contains("panicked") {
            failures.push(format!("{name}: exit {code:?}, expected 2 with {vuid} at {at}: {stderr}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A subpass whose colour location 0 is VK_ATTACHMENT_UNUSED: the fragment shader's output
/// there is dropped, the draw runs, and the program stays clean (this once indexed a tile grid
/// of no tiles).
#[test]
fn an_unused_colour_location_takes_no_write() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut t: Value = serde_json::from_str(&std::fs::read_to_string(root.join("examples/graphics/render-to-texture-correct.json")).expect("example")).expect("json");
    t["render_passes"][0]["subpasses"][0]["color_attachments"] = json!([{"attachment": "UNUSED"}, {"attachment": 0, "layout": "COLOR_ATTACHMENT_OPTIMAL"}]);
    let dir = std::env::temp_dir().join(format!("gpusim-graphics-unused-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("t.json");
    std::fs::write(&path, t.to_string()).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["run", path.to_str().unwrap(), "--profile", "radv-gfx9"]).output().expect("gpusim runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

/// An INPUT_ATTACHMENT descriptor must view the draw's subpass's input attachment, in the
/// layout of its reference; in a dispatch it is refused at its descriptor type. The trace is
/// `examples/graphics/input-attachment-correct.json` with one thing changed.
#[test]
fn input_attachment_descriptors_are_the_subpass_inputs() {
    let run = |name: &str, change: &dyn Fn(&mut Value)| run_example_changed("input-attachment-correct.json", name, change);
    let (code, err) = run("as_is", &|_| {});
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = run("not_an_input", &|t| {
        t["images"][1]["usage"] = json!("COLOR_ATTACHMENT|INPUT_ATTACHMENT|TRANSFER_SRC");
        t["command_buffers"][0]["commands"][4]["bindings"][0]["image"] = json!("colour");
    });
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("views image `colour`, which is not an input attachment of subpass 1"), "{err}");
    let (code, err) = run("wrong_layout", &|t| t["command_buffers"][0]["commands"][4]["bindings"][0]["layout"] = json!("SHADER_READ_ONLY_OPTIMAL"));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("subpass 1 uses image `gbuffer` as an input attachment in layout GENERAL"), "{err}");
    let (code, err) = run("no_usage", &|t| t["images"][0]["usage"] = json!("COLOR_ATTACHMENT"));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("INPUT_ATTACHMENT"), "{err}");
}
