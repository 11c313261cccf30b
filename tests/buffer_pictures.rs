//! `--pictures` for buffers the trace says hold texels (`image_view`): a compute shader's
//! samplings written into buffers, pictured as the run left them beside the reference run's, and
//! the `image_view` field checked when the trace loads.

mod support;

use support::png_rgb;
use std::process::Command;

fn gpusim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim")).args(args).output().unwrap()
}

/// The RGB of texel (x, y) of a 32x32 picture enlarged to 256 pixels: the centre of its square.
fn texel(p: &(u32, u32, Vec<u8>), x: u32, y: u32) -> [u8; 3] {
    let (w, _, rgb) = p;
    let scale = w / 32;
    let at = (((y * scale + scale / 2) * w + x * scale + scale / 2) * 3) as usize;
    [rgb[at], rgb[at + 1], rgb[at + 2]]
}

/// On seed-l2 the second sampling of `storage-then-sample-missing` reads the cleared blue
/// through T$ lines a CU kept: its buffer's simulated picture is the gradient the storage image
/// holds, with blue squares where it read stale lines; the reference is the gradient throughout;
/// the heat map is bright exactly where the two differ. The first sampling's pictures agree.
#[test]
fn buffers_holding_texels_are_pictured() {
    let dir = std::env::temp_dir().join(format!("gpusim-buffer-pictures-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/images/storage-then-sample-missing.json");
    let out = gpusim(&["run", trace, "--profile", "seed-l2", "--pictures", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("wrote 9 pictures of 1 image(s) and 2 buffer(s)"), "{err}");
    let (sim, reference, diff) = (png_rgb(&dir.join("second-simulated.png")), png_rgb(&dir.join("second-reference.png")), png_rgb(&dir.join("second-difference.png")));
    assert_eq!((sim.0, sim.1), (256, 256));
    let (mut stale, mut fresh) = (0, 0);
    for y in 0..32 {
        for x in 0..32 {
            let gradient = [(8 * x) as u8, (8 * y) as u8, 64];
            assert_eq!(texel(&reference, x, y), gradient, "reference texel ({x}, {y})");
            let s = texel(&sim, x, y);
            let d = texel(&diff, x, y);
            if s == gradient {
                fresh += 1;
                // Equal texels are the reference dimmed to a quarter.
                assert_eq!(d, gradient.map(|c| c / 4), "difference at equal texel ({x}, {y})");
            } else {
                assert_eq!(s, [0, 0, 255], "texel ({x}, {y}) is the gradient or the cleared blue");
                stale += 1;
                // Differing texels are red to white, at least half-bright red.
                assert!(d[0] >= 128, "difference at stale texel ({x}, {y}): {d:?}");
            }
        }
    }
    assert!(stale > 0 && fresh > 0, "{stale} stale, {fresh} fresh texels");
    // The first sampling read the cleared image in both runs.
    let (first_sim, first_ref) = (png_rgb(&dir.join("first-simulated.png")), png_rgb(&dir.join("first-reference.png")));
    assert_eq!(first_sim.2, first_ref.2);
    assert_eq!(texel(&first_sim, 5, 7), [0, 0, 255]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An `image_view` must describe texels that fit in the buffer, in a colour format; each
/// mistake is located at its field.
#[test]
fn image_views_of_buffers_are_checked() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/images/storage-then-sample-correct.json")).unwrap();
    let dir = std::env::temp_dir().join(format!("gpusim-buffer-views-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&str, serde_json::Value, &str, &str); 5] = [
        ("too-big", serde_json::json!({"format": "R8G8B8A8_UNORM", "extent": [64, 32]}), "buffers[0].image_view.extent", "need 8192 bytes; the buffer has 4096"),
        ("depth", serde_json::json!({"format": "D32_SFLOAT", "extent": [32, 32]}), "buffers[0].image_view.format", "a colour format, not D32_SFLOAT"),
        ("unknown-format", serde_json::json!({"format": "R8_UNORM", "extent": [32, 32]}), "buffers[0].image_view.format", "unknown or unsupported format `R8_UNORM`"),
        ("short-rows", serde_json::json!({"format": "R8G8B8A8_UNORM", "extent": [32, 32], "row_length": 16}), "buffers[0].image_view.row_length", "shorter than the width, 32"),
        ("empty", serde_json::json!({"format": "R8G8B8A8_UNORM", "extent": [0, 32]}), "buffers[0].image_view.extent", "must not be zero"),
    ];
    for (name, view, at, message) in cases {
        let mut t: serde_json::Value = serde_json::from_str(&text).unwrap();
        t["buffers"][0]["image_view"] = view;
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, serde_json::to_string_pretty(&t).unwrap()).unwrap();
        let out = gpusim(&["run", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(&format!(": {at}: ")) && err.contains(message), "{name}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
