//! Whether this machine can replay on Vulkan under the validation layer: tests that need it
//! skip with the reason printed where it cannot, and fail instead where the environment says
//! Vulkan must be there (`GPUSIM_REQUIRE_VULKAN=1`, which `.ci/run` sets after installing it).

use std::path::Path;
use std::process::Command;

/// `None` when replays under the layer work here, else why not.
pub fn unavailable() -> Option<String> {
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traces/dispatch-then-copy-correct.json");
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim")).args(["replay", "--validate"]).arg(&trace).output().expect("run gpusim");
    let reason = match out.status.code() {
        Some(0) => return None,
        _ => String::from_utf8_lossy(&out.stderr).trim().to_string(),
    };
    if std::env::var("GPUSIM_REQUIRE_VULKAN").is_ok_and(|v| v == "1") {
        panic!("GPUSIM_REQUIRE_VULKAN=1 but a replay under the validation layer fails here: {reason}");
    }
    Some(reason)
}

/// Prints why a test is skipped, straight to stderr (the test harness captures `eprintln!` of a
/// passing test, and a skip must be seen).
pub fn skip(test: &str, reason: &str) {
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "skipping {test}: Vulkan replay is not available here ({reason}); install libvulkan1, mesa-vulkan-drivers and vulkan-validationlayers to run it"
    );
}

/// Prints a note past the harness's capture.
pub fn note(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "note: {line}");
}
