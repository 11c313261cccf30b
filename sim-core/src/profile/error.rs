//! Profile errors that say where: `file:line:col: field.path: what was wrong, what was expected`.
//!
//! Two kinds of mistakes are located differently. Syntax, unknown fields, wrong types and
//! unknown names (caches, stages, accesses) are found while deserializing the user's own text,
//! and toml reports their byte span. Semantic mistakes (a size that is not a power of two, an
//! operation on a cache the machine lacks) are found on the merged profile and reported as a
//! [`FieldPath`]; the path is then looked up in the user's document, parsed again with spans, to
//! find the line. A field the user did not write (it came from the base profile) is reported at
//! the nearest enclosing table the user did write, or without a line.

use std::fmt;

use thiserror::Error;
use toml::de::{DeTable, DeValue};

/// One step of a path into a profile document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathSegment {
    /// A table key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// A path to a field, printed as `barriers.rows[3].dst`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FieldPath(pub Vec<PathSegment>);

impl FieldPath {
    /// A path of keys.
    pub fn keys(keys: &[&str]) -> FieldPath {
        FieldPath(keys.iter().map(|k| PathSegment::Key(k.to_string())).collect())
    }
    /// Appends a key.
    pub fn push_key(&mut self, key: &str) {
        self.0.push(PathSegment::Key(key.to_string()));
    }
    /// Appends an index.
    pub fn push_index(&mut self, i: usize) {
        self.0.push(PathSegment::Index(i));
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for seg in &self.0 {
            match seg {
                PathSegment::Key(k) => {
                    if !first {
                        f.write_str(".")?;
                    }
                    f.write_str(k)?;
                }
                PathSegment::Index(i) => write!(f, "[{i}]")?,
            }
            first = false;
        }
        Ok(())
    }
}

/// A profile that cannot be used, and where the problem is.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{}", self.render())]
pub struct ProfileError {
    /// The file (or built-in name) the problem is in.
    pub origin: String,
    /// 1-based line and column, when the problem is in text the user wrote.
    pub location: Option<(usize, usize)>,
    /// The field at fault (`machine.l2.cache.line_bytes`); empty for file-level problems.
    pub field: String,
    /// What was wrong and what was expected.
    pub message: String,
}

impl ProfileError {
    /// An error about a whole file (unreadable, unknown profile name).
    pub fn file(origin: &str, message: impl Into<String>) -> ProfileError {
        ProfileError { origin: origin.to_string(), location: None, field: String::new(), message: message.into() }
    }

    fn render(&self) -> String {
        let mut s = self.origin.clone();
        if let Some((line, col)) = self.location {
            s.push_str(&format!(":{line}:{col}"));
        }
        s.push_str(": ");
        if !self.field.is_empty() {
            s.push_str(&self.field);
            s.push_str(": ");
        }
        s.push_str(&self.message);
        s
    }
}

/// 1-based (line, column) of a byte offset.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
    (line, col)
}

/// The user's document with spans, for locating paths.
pub(crate) struct SpannedDoc<'a> {
    text: &'a str,
    root: Option<toml::Spanned<DeTable<'a>>>,
}

impl<'a> SpannedDoc<'a> {
    pub(crate) fn parse(text: &'a str) -> SpannedDoc<'a> {
        SpannedDoc { text, root: DeTable::parse(text).ok() }
    }

    /// The byte span of the deepest part of `path` the document contains, and whether the whole
    /// path was found.
    pub(crate) fn span_of(&self, path: &FieldPath) -> Option<(std::ops::Range<usize>, bool)> {
        let root = self.root.as_ref()?;
        let mut table: Option<&DeTable<'a>> = Some(root.get_ref());
        let mut value: Option<&toml::Spanned<DeValue<'a>>> = None;
        let mut best: Option<std::ops::Range<usize>> = None;
        for seg in &path.0 {
            let next = match seg {
                PathSegment::Key(k) => table.and_then(|t| t.iter().find(|(key, _)| &**key.get_ref() == k.as_str())).map(|(key, v)| {
                    // Point at the key of an implicit or header table, at the value otherwise.
                    let span = if v.get_ref().is_table() { key.span() } else { v.span() };
                    (span, v)
                }),
                PathSegment::Index(i) => value.and_then(|v| v.get_ref().as_array()).and_then(|a| a.get(*i)).map(|v| (v.span(), v)),
            };
            match next {
                Some((span, v)) => {
                    best = Some(span);
                    value = Some(v);
                    table = v.get_ref().as_table();
                }
                None => return best.map(|b| (b, false)),
            }
        }
        best.map(|b| (b, true))
    }

    /// The span of the top-level `base` key's value, if any.
    pub(crate) fn base_span(&self) -> Option<std::ops::Range<usize>> {
        self.span_of(&FieldPath::keys(&["base"])).map(|(s, _)| s)
    }

    /// The dotted path of the field whose key or value span most tightly contains `offset`.
    pub(crate) fn path_at(&self, offset: usize) -> String {
        let Some(root) = self.root.as_ref() else { return String::new() };
        let mut spans: Vec<(FieldPath, std::ops::Range<usize>)> = Vec::new();
        collect_table(root.get_ref(), &FieldPath::default(), &mut spans);
        spans
            .into_iter()
            .filter(|(_, s)| s.contains(&offset) || (s.start == offset && s.is_empty()))
            .min_by_key(|(p, s)| (s.len(), usize::MAX - p.0.len()))
            .map(|(p, _)| p.to_string())
            .unwrap_or_default()
    }

    /// When `offset` starts an array and `message` quotes one of its string elements (as the
    /// op and flag parsers do), the element's path and span: errors inside arrays are reported
    /// by toml at the array, but the user wants the element.
    pub(crate) fn element_in_array(&self, offset: usize, message: &str) -> Option<(String, std::ops::Range<usize>)> {
        let root = self.root.as_ref()?;
        let mut spans: Vec<(FieldPath, std::ops::Range<usize>)> = Vec::new();
        collect_table(root.get_ref(), &FieldPath::default(), &mut spans);
        let quoted = message.split('`').nth(1)?;
        let (array_path, _) = spans.iter().find(|(_, s)| s.start == offset)?;
        let value = self.value_at(array_path)?;
        let array = value.get_ref().as_array()?;
        let (i, item) = array.iter().enumerate().find(|(_, v)| v.get_ref().as_str() == Some(quoted))?;
        let mut p = array_path.clone();
        p.push_index(i);
        Some((p.to_string(), item.span()))
    }

    fn value_at(&self, path: &FieldPath) -> Option<&toml::Spanned<DeValue<'a>>> {
        let root = self.root.as_ref()?;
        let mut table: Option<&DeTable<'a>> = Some(root.get_ref());
        let mut value: Option<&toml::Spanned<DeValue<'a>>> = None;
        for seg in &path.0 {
            let v = match seg {
                PathSegment::Key(k) => table?.iter().find(|(key, _)| &**key.get_ref() == k.as_str()).map(|(_, v)| v)?,
                PathSegment::Index(i) => value?.get_ref().as_array()?.get(*i)?,
            };
            value = Some(v);
            table = v.get_ref().as_table();
        }
        value
    }

    pub(crate) fn text(&self) -> &'a str {
        self.text
    }
}

fn collect_table(t: &DeTable<'_>, at: &FieldPath, out: &mut Vec<(FieldPath, std::ops::Range<usize>)>) {
    for (k, v) in t.iter() {
        let mut p = at.clone();
        p.push_key(k.get_ref());
        out.push((p.clone(), k.span()));
        collect_value(v, &p, out);
    }
}

fn collect_value(v: &toml::Spanned<DeValue<'_>>, at: &FieldPath, out: &mut Vec<(FieldPath, std::ops::Range<usize>)>) {
    out.push((at.clone(), v.span()));
    if let Some(t) = v.get_ref().as_table() {
        collect_table(t, at, out);
    } else if let Some(a) = v.get_ref().as_array() {
        for (i, item) in a.iter().enumerate() {
            let mut p = at.clone();
            p.push_index(i);
            collect_value(item, &p, out);
        }
    }
}
