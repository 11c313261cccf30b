//! Reading the files a user names (traces, profiles, shaders, data), never more than a cap.

use std::path::Path;

/// Reads the regular file at `path` if it holds at most `cap` bytes. A device, a FIFO or a
/// directory is refused before it is opened, and at most `cap + 1` bytes are ever read, so a
/// file that grows while it is read cannot take more either. The error says what is wrong,
/// without the path.
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > cap {
        return Err(format!("{} bytes, above the cap of {cap}", meta.len()));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path).and_then(|f| f.take(cap + 1).read_to_end(&mut bytes)).map_err(|e| e.to_string())?;
    if bytes.len() as u64 > cap {
        return Err(format!("more than the cap of {cap} bytes"));
    }
    Ok(bytes)
}
