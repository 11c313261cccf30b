//! What the documentation shows a command printing is what the command prints.
//!
//! Each test takes the shown text from the document itself (README.md, docs/CLI.md,
//! docs/TRACE_FORMAT.md, examples/traces/README.md), runs the command the document gives, and
//! checks that every line shown appears, verbatim and in order, in the real output. A line
//! that is only `…` marks where the document leaves part of the output out.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[allow(dead_code)]
#[path = "../examples/missing_barrier.rs"]
mod missing_barrier;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn doc(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn gpusim_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim")).args(args).current_dir(dir).output().expect("gpusim runs")
}

/// The fenced code blocks of a Markdown text: (info string, body).
fn fenced(md: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in md.lines() {
        match &mut open {
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    open = Some((info.trim().to_string(), String::new()));
                }
            }
            Some((_, body)) => {
                if line.trim_end() == "```" {
                    blocks.push(open.take().unwrap());
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    blocks
}

/// The one fenced block whose body starts with `first`.
fn block_starting(md: &str, first: &str) -> String {
    let found: Vec<String> = fenced(md).into_iter().map(|(_, b)| b).filter(|b| b.starts_with(first)).collect();
    assert_eq!(found.len(), 1, "expected one block starting with {first:?}, found {}", found.len());
    found.into_iter().next().unwrap()
}

/// Every line of `shown` is a line of `real`, in order; a line `…` (or `...`) skips any number
/// of real lines. Panics with both texts otherwise.
fn assert_shown(what: &str, shown: &str, real: &str) {
    let real_lines: Vec<&str> = real.lines().collect();
    let mut at = 0;
    let mut gap = false;
    for line in shown.lines() {
        if matches!(line.trim(), "…" | "...") {
            gap = true;
            continue;
        }
        let found = if gap { real_lines[at..].iter().position(|l| *l == line).map(|k| at + k) } else { (real_lines.get(at) == Some(&line)).then_some(at) };
        match found {
            Some(k) => at = k + 1,
            None => panic!("{what}: the document shows\n{line}\nwhich the real output does not have there.\n--- shown:\n{shown}--- real:\n{real}"),
        }
        gap = false;
    }
}

/// Like [`assert_shown`], but the shown block may start anywhere in the real output.
fn assert_shown_within(what: &str, shown: &str, real: &str) {
    assert_shown(what, &format!("…\n{shown}"), real);
}

/// The arguments after `--` of the `cargo run ... -- ARGS` line of a shell block holding `needle`.
fn cargo_run_args(md: &str, needle: &str) -> Vec<String> {
    let line = fenced(md)
        .into_iter()
        .filter(|(info, _)| info == "sh" || info == "text")
        .flat_map(|(_, b)| b.lines().map(str::to_string).collect::<Vec<_>>())
        .find(|l| l.starts_with("cargo run") && l.contains(needle))
        .unwrap_or_else(|| panic!("no `cargo run` line with {needle:?}"));
    let args = line.split(" -- ").nth(1).unwrap_or_else(|| panic!("no ` -- ` in {line:?}"));
    let args = args.split('#').next().unwrap();
    args.split_whitespace().map(str::to_string).collect()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-doc-outputs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// README's tour: the finding paragraph it shows is the first finding of the command it gives.
#[test]
fn readme_tour_report() {
    let readme = doc("README.md");
    let args = cargo_run_args(&readme, "fill-then-dispatch-missing.json");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = gpusim_in(root(), &args);
    assert_eq!(out.status.code(), Some(1), "README says the exit status is 1");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let shown = block_starting(&readme, "gpusim run: trace");
    assert_shown("README.md, Read the report (its header)", &shown, &stdout);
    let shown = block_starting(&readme, "1. vkCmdDispatch");
    assert_shown_within("README.md, Read the report", &shown, &stdout);
    let shown = block_starting(&readme, "H1. SYNC-HAZARD");
    assert_shown_within("README.md, Find the hazards", &shown, &stdout);
}

/// README's matrix of every built-in machine is what `--profile all` prints.
#[test]
fn readme_profile_matrix() {
    let readme = doc("README.md");
    let args = cargo_run_args(&readme, "--profile all");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = gpusim_in(root(), &args);
    assert_eq!(out.status.code(), Some(1));
    let shown = block_starting(&readme, "profile      corrupted");
    assert_shown_within("README.md, Every machine at once", &shown, &String::from_utf8(out.stdout).unwrap());
}

/// README's Rust API section: what `cargo run --example missing_barrier` prints.
#[test]
fn readme_missing_barrier_example() {
    let readme = doc("README.md");
    let shown = block_starting(&readme, "barrier: false:");
    let real = missing_barrier::report().expect("the example runs");
    assert_shown("README.md, examples/missing_barrier.rs", &shown, &real);
}

/// README's first trace: saved next to the example shaders it runs clean; without its barrier
/// it corrupts; with a typo it gives the one located message the README quotes.
#[test]
fn readme_first_trace_and_its_error_message() {
    let readme = doc("README.md");
    let trace = fenced(&readme).into_iter().map(|(_, b)| b).find(|b| b.contains("\"my-first-trace\"")).expect("the trace block");
    let dir = temp_dir("first-trace");
    std::fs::create_dir_all(dir.join("shaders")).unwrap();
    std::fs::copy(root().join("examples/traces/shaders/add_one.wgsl"), dir.join("shaders/add_one.wgsl")).unwrap();

    std::fs::write(dir.join("my.json"), &trace).unwrap();
    let out = gpusim_in(&dir, &["run", "my.json"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));

    let mut v: serde_json::Value = serde_json::from_str(&trace).unwrap();
    v["command_buffers"][0]["commands"].as_array_mut().unwrap().retain(|c| c["cmd"] != "pipeline_barrier");
    std::fs::write(dir.join("my.json"), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let out = gpusim_in(&dir, &["run", "my.json"]);
    assert_eq!(out.status.code(), Some(1), "without its barrier the trace corrupts");

    // The quoted message: the README's own text with `Z` for `A` as the fill's buffer.
    let quoted = readme.lines().find_map(|l| l.split_once("Mistakes get one message with the place: `")).map(|(_, rest)| rest).expect("the quoted message");
    let quoted = &quoted[..quoted.rfind("`.").expect("closing backtick")];
    let typo = trace.replacen("\"dst_buffer\": \"A\"", "\"dst_buffer\": \"Z\"", 1);
    assert_ne!(typo, trace);
    std::fs::write(dir.join("my.json"), typo).unwrap();
    let out = gpusim_in(&dir, &["run", "my.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8(out.stderr).unwrap().trim_end(), quoted);
    let _ = std::fs::remove_dir_all(&dir);
}

/// docs/CLI.md's synopsis names each subcommand with exactly the options its `--help` lists.
#[test]
fn cli_synopsis_matches_help() {
    let cli = doc("docs/CLI.md");
    let synopsis = fenced(&cli).into_iter().map(|(_, b)| b).find(|b| b.starts_with("gpusim demo")).expect("synopsis block");
    let mut per_command: Vec<(String, Vec<String>)> = Vec::new();
    for line in synopsis.lines() {
        let line = line.split('#').next().unwrap();
        if let Some(rest) = line.strip_prefix("gpusim ") {
            // `gpusim profile list | show ...` and `gpusim profile check ...` are two commands.
            let mut words = rest.split_whitespace();
            let name = match (words.next().unwrap(), words.next()) {
                ("profile", Some("check")) => "profile check".to_string(),
                ("profile", _) => "profile show".to_string(),
                (first, _) => first.to_string(),
            };
            per_command.push((name, Vec::new()));
        }
        let opts = &mut per_command.last_mut().expect("a synopsis line starts with `gpusim`").1;
        for word in line.split(|c: char| c.is_whitespace() || c == '[' || c == ']') {
            match word {
                "-o" => opts.push("--output".into()),
                w if w.starts_with("--") => opts.push(w.to_string()),
                _ => {}
            }
        }
    }
    let names: Vec<&str> = per_command.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(names, ["demo", "run", "graph", "profile show", "profile check", "check", "replay", "import", "strategies", "sweep", "merge"], "{synopsis}");
    for (command, mut shown) in per_command {
        let mut help_args: Vec<&str> = command.split(' ').collect();
        help_args.push("--help");
        let help = String::from_utf8(gpusim_in(root(), &help_args).stdout).unwrap();
        let mut real: Vec<String> = help
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| w.starts_with("--") && *w != "--help")
            .map(|w| w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()).to_string())
            .filter(|w| w.len() > 2 && !w.contains('<'))
            .collect();
        real.sort();
        real.dedup();
        shown.sort();
        shown.dedup();
        assert_eq!(shown, real, "docs/CLI.md's synopsis of `gpusim {command}` against its --help:\n{help}");
    }
}

/// Every error docs/TRACE_FORMAT.md quotes for a part this version does not accept is what
/// loading such a trace prints (the traces are written the way the page's quotes were made).
#[test]
fn trace_format_quoted_errors() {
    const HEAD: &str = r#""gpusim_trace": 1, "memory": [{"id": "dev", "size": 65536, "properties": "DEVICE_LOCAL"}], "buffers": [{"id": "A", "memory": "dev", "size": 4096}]"#;
    const SHADER: &str = r#""shaders": [{"id": "s", "wgsl": "@compute @workgroup_size(1) fn main() {}"}]"#;
    let cmd = |c: &str| format!(r#""command_buffers": [{{"id": "cb0", "commands": [{c}]}}]"#);
    let traces = [
        r#""render_passes": [{"id": "rp", "attachments": [], "subpasses": []}]"#.to_string(),
        r#""shaders": [{"id": "gs", "stage": "GEOMETRY", "wgsl": "@fragment fn main() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }"}]"#.to_string(),
        cmd(r#"{"cmd": "execute_commands", "command_buffers": ["cb1"]}"#),
        cmd(r#"{"cmd": "dispatch_indirect"}"#),
        cmd(r#"{"cmd": "dispatch_indirect", "shader": "s", "buffer": "A", "offset": 0}"#),
        format!("{SHADER}, {}", cmd(r#"{"cmd": "dispatch", "shader": "s", "group_count": [1,1,1], "bindings": [{"binding": 0, "buffer": "A", "descriptor_type": "STORAGE_BUFFER_DYNAMIC"}]}"#)),
        cmd(r#"{"cmd": "resolve_image"}"#),
        cmd(r#"{"cmd": "draw"}"#),
        cmd(r#"{"cmd": "draw", "pipeline": "tri", "vertex_count": 3, "instance_count": 1}"#),
        r#""timeline": [{"op": "signal_semaphore", "semaphore": "t0", "value": 5}]"#.to_string(),
        r#""semaphores": [{"id": "t0", "type": "TIMELINE", "initial_value": 0}]"#.to_string(),
    ];
    let dir = temp_dir("trace-format-errors");
    let mut real = Vec::new();
    for body in &traces {
        std::fs::write(dir.join("t.json"), format!("{{{HEAD}, {body}}}\n")).unwrap();
        let out = gpusim_in(&dir, &["run", "t.json"]);
        assert_eq!(out.status.code(), Some(2), "{body}");
        real.push(String::from_utf8(out.stderr).unwrap().trim_end().to_string());
    }
    std::fs::write(dir.join("capture.gfxr"), r#"{"gpusim_trace": 1}"#).unwrap();
    let out = gpusim_in(&dir, &["import", "capture.gfxr", "-o", "t.json"]);
    assert_eq!(out.status.code(), Some(2));
    real.push(String::from_utf8(out.stderr).unwrap().lines().next().unwrap().to_string());
    let _ = std::fs::remove_dir_all(&dir);

    let page = doc("docs/TRACE_FORMAT.md");
    let quoted: Vec<&str> = page.lines().filter(|l| l.starts_with("gpusim: error: t.json") || l.starts_with("gpusim: error: capture.gfxr")).collect();
    for q in &quoted {
        assert!(real.iter().any(|r| r == q), "docs/TRACE_FORMAT.md quotes\n{q}\nbut no such trace prints it; they print:\n{}", real.join("\n"));
    }
    for r in &real {
        assert!(quoted.contains(&r.as_str()), "docs/TRACE_FORMAT.md should quote\n{r}");
    }
}

/// docs/TRACE_FORMAT.md's complete trace runs clean on every built-in profile, and without the
/// barrier before its second copy it corrupts on every one, as the page says.
#[test]
fn trace_format_complete_trace() {
    let page = doc("docs/TRACE_FORMAT.md");
    let trace = fenced(&page).into_iter().map(|(_, b)| b).find(|b| b.contains("\"upload-double-readback\"")).expect("the complete trace");
    let dir = temp_dir("complete-trace");
    std::fs::write(dir.join("t.json"), &trace).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&trace).unwrap();
    v["command_buffers"][0]["commands"].as_array_mut().unwrap().retain(|c| c.get("buffer_memory_barriers").is_none());
    std::fs::write(dir.join("without.json"), serde_json::to_string(&v).unwrap()).unwrap();
    for profile in ["seed-l2", "seed-vram", "ideal"] {
        let out = gpusim_in(&dir, &["run", "t.json", "--profile", profile, "--schedules", "8"]);
        assert_eq!(out.status.code(), Some(0), "{profile}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let out = gpusim_in(&dir, &["run", "without.json", "--profile", profile, "--schedules", "8"]);
        assert_eq!(out.status.code(), Some(1), "{profile}: without the buffer barrier");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// examples/traces/README.md names traces that exist, and every trace there is named.
#[test]
fn example_traces_readme_names_the_traces() {
    let readme = doc("examples/traces/README.md");
    let mut named = Vec::new();
    for line in readme.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| Trace") && !l.starts_with("|---")) {
        let cell = line.trim_start_matches("| ").split(" |").next().unwrap().trim();
        let (stem, variants) = match cell.split_once(" / ") {
            Some((first, second)) => {
                // `NAME-missing[-what] / -correct`: the second is NAME-correct.
                let base = &first[..first.find("-missing").unwrap_or_else(|| panic!("{cell}"))];
                (first.to_string(), vec![format!("{base}{second}")])
            }
            None => (cell.to_string(), vec![]),
        };
        named.push(stem);
        named.extend(variants);
    }
    let mut present: Vec<String> = std::fs::read_dir(root().join("examples/traces"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".json").filter(|s| !s.ends_with(".expect")).map(str::to_string))
        .collect();
    present.sort();
    named.sort();
    assert_eq!(named, present, "examples/traces/README.md's tables against the traces in examples/traces/");
}
