//! Finding places in a trace's JSON text: the JSON path of a byte offset (for serde's syntax
//! and type errors, which know only line and column) and the line and column of a JSON path
//! (for the loader's semantic errors, found after parsing). Both walk the text with a small
//! scanner, only when an error is reported, so a valid trace pays nothing.

/// A value's place: its JSON path (`command_buffers[0].commands[3].dst_offset`) and its byte
/// range in the text.
struct Span {
    path: String,
    start: usize,
    end: usize,
}

/// Scans `text` and returns the values `keep` accepts (given a finished value's path and
/// range), with their paths and ranges, and the values a syntax error left unfinished (stops
/// quietly at one: whatever was scanned so far is still useful). Keeping only what a question
/// needs bounds the memory: every value of a 256 MiB trace, each with its path, took gigabytes.
fn scan(text: &str, keep: &dyn Fn(&str, usize, usize) -> bool) -> Vec<Span> {
    let mut s = Scanner { b: text.as_bytes(), i: 0, out: Vec::new(), depth: 0, keep };
    s.ws();
    let _ = s.value(String::new());
    s.out
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
    out: Vec<Span>,
    depth: usize,
    keep: &'a dyn Fn(&str, usize, usize) -> bool,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn string(&mut self) -> Option<String> {
        // At the opening quote.
        self.i += 1;
        let start = self.i;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => self.i += 2,
                b'"' => {
                    let s = String::from_utf8_lossy(&self.b[start..self.i]).into_owned();
                    self.i += 1;
                    return Some(s);
                }
                _ => self.i += 1,
            }
        }
        None
    }

    fn value(&mut self, path: String) -> Option<()> {
        // Deeply nested input is rejected by serde_json (recursion limit 128) before this runs;
        // the scanner stops at the same depth so it never overflows the stack either.
        if self.depth > 200 {
            return None;
        }
        let start = self.i;
        let idx = self.out.len();
        self.out.push(Span { path: path.clone(), start, end: start });
        match *self.b.get(self.i)? {
            b'{' => {
                self.depth += 1;
                self.i += 1;
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        if self.b.get(self.i) != Some(&b'"') {
                            return None;
                        }
                        let key = self.string()?;
                        self.ws();
                        if self.b.get(self.i) != Some(&b':') {
                            return None;
                        }
                        self.i += 1;
                        self.ws();
                        let child = if path.is_empty() { key } else { format!("{path}.{key}") };
                        self.value(child)?;
                        self.ws();
                        match self.b.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                self.depth -= 1;
            }
            b'[' => {
                self.depth += 1;
                self.i += 1;
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                } else {
                    let mut k = 0usize;
                    loop {
                        self.ws();
                        self.value(format!("{path}[{k}]"))?;
                        k += 1;
                        self.ws();
                        match self.b.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                self.depth -= 1;
            }
            b'"' => {
                self.string()?;
            }
            _ => {
                while self.i < self.b.len() && !matches!(self.b[self.i], b',' | b'}' | b']') && !self.b[self.i].is_ascii_whitespace() {
                    self.i += 1;
                }
            }
        }
        if (self.keep)(&path, start, self.i) {
            self.out[idx].end = self.i;
        } else {
            // Only kept values follow it: few, so the shift is cheap.
            self.out.remove(idx);
        }
        Some(())
    }
}

/// Byte offset of a 1-based line and column.
pub(crate) fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut off = 0;
    for (n, l) in text.split_inclusive('\n').enumerate() {
        if n + 1 == line {
            return off + column.saturating_sub(1).min(l.len());
        }
        off += l.len();
    }
    text.len()
}

/// 1-based line and column of a byte offset.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
    let col = before.iter().rev().take_while(|&&c| c != b'\n').count() + 1;
    (line, col)
}

/// The JSON path of the innermost value around `offset` (serde reports errors at or just after
/// the offending token, so a value ending exactly there counts).
pub(crate) fn path_at(text: &str, offset: usize) -> String {
    let around = |start: usize, end: usize| start <= offset && offset <= end.max(start + 1);
    let spans = scan(text, &|_, start, end| around(start, end));
    spans
        .iter()
        .filter(|s| around(s.start, s.end))
        .min_by_key(|s| s.end - s.start)
        .map(|s| s.path.clone())
        .unwrap_or_default()
}

/// Whether `p` is the path `target` or one of its parents: a path `target` starts with, up to a
/// `.` or `[`.
fn on_the_way(target: &str, p: &str) -> bool {
    p.is_empty() || target == p || (target.starts_with(p) && matches!(target.as_bytes().get(p.len()), Some(b'.' | b'[')))
}

/// Line and column of the value at `path`, or of its closest existing parent (a missing
/// field is reported at the object that lacks it).
pub(crate) fn locate(text: &str, path: &str) -> Option<(usize, usize)> {
    let spans = scan(text, &|p, _, _| on_the_way(path, p));
    let mut p = path.to_string();
    loop {
        if let Some(s) = spans.iter().find(|s| s.path == p) {
            return Some(line_column(text, s.start));
        }
        let cut = p.rfind(['.', '['])?;
        p.truncate(cut);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_positions_round_trip() {
        let text = "{\"a\": [1, {\"b\": \"x\"}],\n \"c\": {\"d\": 5}}";
        assert_eq!(locate(text, "c.d"), Some((2, 13)));
        assert_eq!(locate(text, "a[1].b"), Some((1, 17)));
        assert_eq!(path_at(text, offset_of(text, 2, 13)), "c.d");
        assert_eq!(locate(text, "a[1].missing"), Some((1, 11)));
    }

    /// Answering a question keeps only the values on the way to its answer, not every value of
    /// the text (a 100 MB trace's error once took 4.8 GB to locate).
    #[test]
    fn a_scan_keeps_only_what_the_question_needs() {
        let items: Vec<String> = (0..10_000).map(|k| format!("{{\"k\": {k}, \"v\": [1, 2, 3]}}")).collect();
        let text = format!("{{\"list\": [{}], \"last\": 1}}", items.join(", "));
        let target = "list[7777].v[2]";
        let kept = scan(&text, &|p, _, _| on_the_way(target, p));
        let paths: Vec<&str> = kept.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(paths.len(), 5, "{paths:?}");
        assert!(["", "list", "list[7777]", "list[7777].v", "list[7777].v[2]"].iter().all(|p| paths.contains(p)), "{paths:?}");
        let (line, column) = locate(&text, target).unwrap();
        assert_eq!(path_at(&text, offset_of(&text, line, column)), target);
    }
}
