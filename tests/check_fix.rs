//! `gpusim check --fix`: for every example and corpus scenario with hazards, the corrected
//! trace checks clean and runs clean on every built-in profile (a barrier or event wait that is
//! too narrow is widened where it stands, else the diagnosis's suggested barrier, semaphore or
//! host operation is added; a hazard no synchronization fixes is named on stderr and left), and
//! the fixed trace differs from the input only in the lines the fix changes or adds.

mod support;

use std::path::Path;
use std::process::{Command, Output};

fn gpusim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim")).args(args).output().expect("run gpusim")
}


#[test]
fn fixed_traces_check_and_run_clean() {
    let out_dir = std::env::temp_dir().join(format!("gpusim-fix-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).expect("temp dir");
    let mut failures = Vec::new();
    let (mut fixed, mut unfixable) = (0, 0);
    // The image examples' missing barriers include layout transitions ordered after nothing:
    // their own image barriers are widened. The graphics examples' are subpass dependencies,
    // added or widened in their render passes.
    let all = support::traces("examples/traces").into_iter().chain(support::traces("examples/images")).chain(support::traces("examples/graphics"));
    for t in all.chain(support::traces("tests/corpus/syncval")) {
        let t = t.to_str().expect("utf-8");
        if gpusim(&["check", t]).status.code() == Some(0) {
            continue;
        }
        let name = Path::new(t).file_name().expect("name").to_string_lossy().into_owned();
        let out = out_dir.join(&name);
        let o = out.to_str().expect("utf-8");
        let fix = gpusim(&["check", t, "--fix", "-o", o]);
        assert_eq!(fix.status.code(), Some(1), "{name}: {}", String::from_utf8_lossy(&fix.stderr));
        if String::from_utf8_lossy(&fix.stderr).contains("not fixed") {
            unfixable += 1;
            continue;
        }
        fixed += 1;
        let check = gpusim(&["check", o]);
        if check.status.code() != Some(0) {
            failures.push(format!("{name}: the fixed trace still has hazards:\n{}", String::from_utf8_lossy(&check.stdout)));
            continue;
        }
        for profile in ["seed-l2", "seed-vram", "ideal"] {
            let run = gpusim(&["run", o, "--profile", profile, "--schedules", "2"]);
            if run.status.code() != Some(0) {
                failures.push(format!("{name} on {profile}: exit {:?}\n{}{}", run.status.code(), String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr)));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    assert!(fixed >= 50, "{fixed} traces fixed");
    assert_eq!(unfixable, 1, "only the partial-atom flush has no synchronization fix");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A folder of its own under the temporary folder, holding a copy of the examples' shaders, so
/// that a trace written there names them as the examples do.
fn scratch_with_shaders(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-fix-{name}-{}", std::process::id()));
    let shaders = dir.join("shaders");
    std::fs::create_dir_all(&shaders).expect("temp dir");
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traces/shaders");
    for e in std::fs::read_dir(&from).expect("shaders") {
        let p = e.expect("entry").path();
        std::fs::copy(&p, shaders.join(p.file_name().expect("name"))).expect("copy");
    }
    dir
}

/// `gpusim check EXAMPLE --fix` into a folder holding the example and its shaders: the input's
/// text and the fixed trace's (which checks clean).
fn fix_in_place(example: &str, dir: &Path) -> (String, String) {
    let input = dir.join(example);
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traces").join(example)).expect("example");
    std::fs::write(&input, &text).expect("copy");
    let output = dir.join(format!("fixed-{example}"));
    let fix = gpusim(&["check", input.to_str().unwrap(), "--fix", "-o", output.to_str().unwrap()]);
    assert_eq!(fix.status.code(), Some(1), "{example}: {}", String::from_utf8_lossy(&fix.stderr));
    let check = gpusim(&["check", output.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{example}: {}", String::from_utf8_lossy(&check.stdout));
    (text, std::fs::read_to_string(&output).expect("fixed"))
}

/// A barrier or event wait that is there but too narrow is widened where it stands: the lines
/// that change are its masks (or its range), spelt as the command spells them (sync1 names in
/// a synchronization1 command), and an event wait is widened with the set it waits for.
#[test]
fn a_narrow_barrier_is_widened_where_it_stands() {
    let dir = scratch_with_shaders("widen");
    let cases: [(&str, &[(&str, &str)]); 5] = [
        ("fill-then-dispatch-dst-none-missing.json", &[(r#"              "dst_access_mask": "NONE""#, r#"              "dst_access_mask": "SHADER_STORAGE_READ""#)]),
        (
            "uniform-read-after-storage-write-missing.json",
            &[(r#"              "dst_access_mask": "SHADER_STORAGE_READ""#, r#"              "dst_access_mask": "SHADER_STORAGE_READ|UNIFORM_READ""#)],
        ),
        ("dispatch-then-copy-missing.json", &[(r#"              "src_access_mask": "NONE","#, r#"              "src_access_mask": "SHADER_STORAGE_WRITE","#)]),
        (
            "event-sync1-missing.json",
            &[(
                r#"         "memory_barriers": [{"src_access_mask": "NONE", "dst_access_mask": "TRANSFER_READ"}]},"#,
                r#"         "memory_barriers": [{"src_access_mask": "SHADER_WRITE", "dst_access_mask": "TRANSFER_READ"}]},"#,
            )],
        ),
        (
            "split-barrier-missing.json",
            &[
                (r#"                "src_stage_mask": "COMPUTE_SHADER","#, r#"                "src_stage_mask": "COMPUTE_SHADER|CLEAR","#),
                (r#"                "src_access_mask": "NONE","#, r#"                "src_access_mask": "TRANSFER_WRITE","#),
                (r#"                  "src_stage_mask": "COMPUTE_SHADER","#, r#"                  "src_stage_mask": "COMPUTE_SHADER|CLEAR","#),
                (r#"                  "src_access_mask": "NONE","#, r#"                  "src_access_mask": "TRANSFER_WRITE","#),
            ],
        ),
    ];
    for (example, changes) in cases {
        let (input, fixed) = fix_in_place(example, &dir);
        let (a, b): (Vec<&str>, Vec<&str>) = (input.lines().collect(), fixed.lines().collect());
        assert_eq!(a.len(), b.len(), "{example}: only lines changed, none added:\n{fixed}");
        let changed: Vec<(&str, &str)> = a.iter().zip(&b).filter(|(x, y)| x != y).map(|(x, y)| (*x, *y)).collect();
        assert_eq!(changed, changes.to_vec(), "{example}");
        assert_eq!(input.ends_with('\n'), fixed.ends_with('\n'), "{example}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A buffer barrier on the wrong buffer gets one for the hazard's buffer beside it, in the
/// same command.
#[test]
fn a_buffer_barrier_on_another_buffer_gets_one_beside_it() {
    let dir = scratch_with_shaders("beside");
    let (input, fixed) = fix_in_place("fill-then-dispatch-wrong-buffer-missing.json", &dir);
    let inserted = "            },\n            {\n              \"src_stage_mask\": \"CLEAR\",\n              \"src_access_mask\": \"TRANSFER_WRITE\",\n              \"dst_stage_mask\": \"COMPUTE_SHADER\",\n              \"dst_access_mask\": \"SHADER_STORAGE_READ\",\n              \"buffer\": \"A\",\n              \"offset\": 0,\n              \"size\": \"WHOLE_SIZE\"\n";
    let at = fixed.find(inserted).unwrap_or_else(|| panic!("{fixed}"));
    assert_eq!(format!("{}{}", &fixed[..at], &fixed[at + inserted.len()..]), input);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where no barrier stands between the two commands, one is inserted before the hazardous one,
/// on lines of its own indented like the commands around it: the diff is those lines alone.
#[test]
fn a_missing_barrier_is_inserted_as_lines_of_its_own() {
    let dir = scratch_with_shaders("insert");
    let (input, fixed) = fix_in_place("fill-then-dispatch-missing.json", &dir);
    let inserted = "        {\n          \"cmd\": \"pipeline_barrier\",\n          \"memory_barriers\": [\n            {\n              \"src_stage_mask\": \"CLEAR\",\n              \"src_access_mask\": \"TRANSFER_WRITE\",\n              \"dst_stage_mask\": \"COMPUTE_SHADER\",\n              \"dst_access_mask\": \"SHADER_STORAGE_READ\"\n            }\n          ]\n        },\n";
    let at = fixed.find(inserted).unwrap_or_else(|| panic!("{fixed}"));
    assert_eq!(format!("{}{}", &fixed[..at], &fixed[at + inserted.len()..]), input);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fixed trace written to another folder names the input's files relative to its own.
#[test]
fn files_are_named_relative_to_the_fixed_trace() {
    let dir = std::env::temp_dir().join(format!("gpusim-fix-relative-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("deeper")).expect("temp dir");
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traces/fill-then-dispatch-missing.json");
    let output = dir.join("deeper/fixed.json");
    let fix = gpusim(&["check", input.to_str().unwrap(), "--fix", "-o", output.to_str().unwrap()]);
    assert_eq!(fix.status.code(), Some(1), "{}", String::from_utf8_lossy(&fix.stderr));
    let t: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    let named = t["shaders"][0]["wgsl_file"].as_str().expect("wgsl_file");
    assert!(Path::new(named).is_relative(), "{named}");
    let shader = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traces/shaders/add_one.wgsl");
    assert_eq!(std::fs::canonicalize(output.parent().unwrap().join(named)).unwrap(), std::fs::canonicalize(shader).unwrap());
    assert_eq!(gpusim(&["check", output.to_str().unwrap()]).status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The report's `Fix:` line says what `--fix` does: widen the barrier that stands between the
/// accesses, naming the bits it adds; a missing barrier is still one to insert.
#[test]
fn the_fix_line_says_to_widen_the_barrier_at_fault() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = gpusim(&["check", root.join("examples/traces/uniform-read-after-storage-write-missing.json").to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    let fix = text.lines().find(|l| l.trim_start().starts_with("Fix:")).expect("a fix line");
    assert!(fix.contains("widen vkCmdPipelineBarrier2 cb0[3]") && fix.contains("add UNIFORM_READ to its dstAccessMask"), "{fix}");
    let out = gpusim(&["check", root.join("examples/traces/fill-then-dispatch-missing.json").to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Fix: a vkCmdPipelineBarrier2 before cb0[1]"), "{text}");
}

/// A render pass whose implicit dependency to EXTERNAL leaves a later sampler without the
/// attachment's texels gets the dependency it lacks, in the render pass: no pipeline barrier
/// after it can chain from the implicit dependency's empty second scope.
#[test]
fn a_render_pass_gets_the_subpass_dependency_it_lacks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("gpusim-fix-rp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("fixed.json");
    let input = root.join("examples/graphics/render-to-texture-missing.json");
    let fix = gpusim(&["check", input.to_str().unwrap(), "--fix", "-o", out.to_str().unwrap()]);
    assert_eq!(fix.status.code(), Some(1), "{}", String::from_utf8_lossy(&fix.stderr));
    let before: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&input).unwrap()).unwrap();
    let after: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(before["command_buffers"][0]["commands"].as_array().unwrap().len(), after["command_buffers"][0]["commands"].as_array().unwrap().len(), "no command inserted");
    let deps = after["render_passes"][0]["dependencies"].as_array().expect("dependencies");
    let to_external = deps.iter().find(|d| d["src_subpass"] == 0 && d["dst_subpass"] == "EXTERNAL").expect("a dependency from subpass 0 to EXTERNAL");
    assert!(to_external["dst_stage_mask"].as_str().unwrap().contains("COMPUTE_SHADER"), "{to_external}");
    assert!(to_external["dst_access_mask"].as_str().unwrap().contains("SHADER_SAMPLED_READ"), "{to_external}");
    assert!(to_external["src_access_mask"].as_str().unwrap().contains("COLOR_ATTACHMENT_WRITE"), "{to_external}");
    let check = gpusim(&["check", out.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(check.status.code(), Some(0), "{}", String::from_utf8_lossy(&check.stdout));
}
