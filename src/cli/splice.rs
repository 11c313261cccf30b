//! Edits spliced into a JSON text: the text is scanned once for the byte span of every value,
//! and each edit replaces one span or inserts at one place, written in the layout of its
//! neighbours (a value on lines of its own indented like them, or a one-line value beside
//! one-line neighbours). Everything else stays byte for byte, so that `diff` of the input and
//! the output shows only what an edit changed.

/// A JSON value's place in the text.
#[derive(Debug)]
pub struct Node {
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just past its last character.
    pub end: usize,
    /// What it holds.
    pub kind: Kind,
}

/// The shape of a [`Node`].
#[derive(Debug)]
pub enum Kind {
    /// An object, its members in the text's order.
    Object(Vec<Member>),
    /// An array.
    Array(Vec<Node>),
    /// A string, number, `true`, `false` or `null`.
    Scalar,
}

/// A member of an object.
#[derive(Debug)]
pub struct Member {
    /// The key, decoded.
    pub key: String,
    /// Byte offset of the key's opening quote.
    pub key_start: usize,
    /// The value.
    pub value: Node,
}

impl Node {
    /// The value of member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.member(key).map(|m| &m.value)
    }

    /// Member `key` of an object.
    pub fn member(&self, key: &str) -> Option<&Member> {
        match &self.kind {
            Kind::Object(ms) => ms.iter().find(|m| m.key == key),
            _ => None,
        }
    }

    /// The members of an object (none for another value).
    pub fn members(&self) -> &[Member] {
        match &self.kind {
            Kind::Object(ms) => ms,
            _ => &[],
        }
    }

    /// The items of an array (none for another value).
    pub fn items(&self) -> &[Node] {
        match &self.kind {
            Kind::Array(v) => v,
            _ => &[],
        }
    }

    /// Whether the value is an array.
    pub fn is_array(&self) -> bool {
        matches!(self.kind, Kind::Array(_))
    }

    /// The value, when it is a string.
    pub fn as_str(&self, text: &str) -> Option<String> {
        match self.kind {
            Kind::Scalar if text[self.start..].starts_with('"') => serde_json::from_str(&text[self.start..self.end]).ok(),
            _ => None,
        }
    }

    /// The value, when it is a whole number.
    pub fn as_u64(&self, text: &str) -> Option<u64> {
        match self.kind {
            Kind::Scalar => text[self.start..self.end].parse().ok(),
            _ => None,
        }
    }
}

/// Scans `text` (JSON that serde has already accepted) into its spans.
pub fn parse(text: &str) -> Result<Node, String> {
    let mut p = Parser { b: text.as_bytes(), i: 0, depth: 0 };
    p.ws();
    let v = p.value().ok_or_else(|| format!("cannot scan the trace's JSON at byte {}", p.i))?;
    Ok(v)
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn string_end(&mut self) -> Option<()> {
        // At the opening quote.
        self.i += 1;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    return Some(());
                }
                _ => self.i += 1,
            }
        }
        None
    }

    fn value(&mut self) -> Option<Node> {
        // serde_json refuses nesting deeper than 128 before this runs.
        if self.depth > 200 {
            return None;
        }
        let start = self.i;
        let kind = match *self.b.get(self.i)? {
            b'{' => {
                self.depth += 1;
                self.i += 1;
                self.ws();
                let mut members = Vec::new();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        if self.b.get(self.i) != Some(&b'"') {
                            return None;
                        }
                        let key_start = self.i;
                        self.string_end()?;
                        let key: String = serde_json::from_slice(&self.b[key_start..self.i]).ok()?;
                        self.ws();
                        if self.b.get(self.i) != Some(&b':') {
                            return None;
                        }
                        self.i += 1;
                        self.ws();
                        let value = self.value()?;
                        members.push(Member { key, key_start, value });
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
                Kind::Object(members)
            }
            b'[' => {
                self.depth += 1;
                self.i += 1;
                self.ws();
                let mut items = Vec::new();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        items.push(self.value()?);
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
                Kind::Array(items)
            }
            b'"' => {
                self.string_end()?;
                Kind::Scalar
            }
            _ => {
                while self.i < self.b.len() && !matches!(self.b[self.i], b',' | b'}' | b']') && !self.b[self.i].is_ascii_whitespace() {
                    self.i += 1;
                }
                if self.i == start {
                    return None;
                }
                Kind::Scalar
            }
        };
        Some(Node { start, end: self.i, kind })
    }
}

/// A value to write: objects keep the order their members are given in.
#[derive(Clone, Debug, PartialEq)]
pub enum V {
    /// An object.
    Obj(Vec<(String, V)>),
    /// An array.
    Arr(Vec<V>),
    /// A scalar, as JSON text.
    Raw(String),
}

impl V {
    /// A JSON string.
    pub fn str(s: &str) -> V {
        V::Raw(serde_json::Value::from(s).to_string())
    }

    /// A JSON number.
    pub fn num(n: u64) -> V {
        V::Raw(n.to_string())
    }

    /// An object of `(key, value)` pairs, in that order.
    pub fn obj<'a>(members: impl IntoIterator<Item = (&'a str, V)>) -> V {
        V::Obj(members.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }
}

/// How a value is laid out.
#[derive(Clone, Debug)]
pub enum Layout {
    /// On one line: `{"a": 1, "b": [2, 3]}`.
    Compact,
    /// Each member and item on a line of its own (serde_json's pretty layout), the value's
    /// closing bracket at `indent`, its contents one `unit` further in.
    Pretty {
        /// The indentation of the line the value starts on.
        indent: String,
        /// One level of indentation.
        unit: String,
    },
}

/// `v` as text laid out as `layout` says (its first line not indented: it follows a key or a
/// separator).
pub fn render(v: &V, layout: &Layout) -> String {
    match (v, layout) {
        (V::Raw(s), _) => s.clone(),
        (V::Obj(ms), _) if ms.is_empty() => "{}".into(),
        (V::Arr(items), _) if items.is_empty() => "[]".into(),
        (V::Obj(ms), Layout::Compact) => format!("{{{}}}", ms.iter().map(|(k, v)| format!("{}: {}", V::str(k).text(), render(v, layout))).collect::<Vec<_>>().join(", ")),
        (V::Arr(items), Layout::Compact) => format!("[{}]", items.iter().map(|v| render(v, layout)).collect::<Vec<_>>().join(", ")),
        (V::Obj(ms), Layout::Pretty { indent, unit }) => {
            let inner = Layout::Pretty { indent: format!("{indent}{unit}"), unit: unit.clone() };
            let body: Vec<String> = ms.iter().map(|(k, v)| format!("{indent}{unit}{}: {}", V::str(k).text(), render(v, &inner))).collect();
            format!("{{\n{}\n{indent}}}", body.join(",\n"))
        }
        (V::Arr(items), Layout::Pretty { indent, unit }) => {
            let inner = Layout::Pretty { indent: format!("{indent}{unit}"), unit: unit.clone() };
            let body: Vec<String> = items.iter().map(|v| format!("{indent}{unit}{}", render(v, &inner))).collect();
            format!("[\n{}\n{indent}]", body.join(",\n"))
        }
    }
}

impl V {
    fn text(&self) -> String {
        render(self, &Layout::Compact)
    }
}

/// The edits to one text.
#[derive(Debug, Default)]
pub struct Edits {
    /// (start, end, order given, new text).
    list: Vec<(usize, usize, usize, String)>,
}

impl Edits {
    /// Replaces the text of `node`.
    pub fn replace(&mut self, node: &Node, text: String) {
        let n = self.list.len();
        self.list.push((node.start, node.end, n, text));
    }

    /// Inserts `text` at byte `at`; insertions at one place keep the order they are given in.
    pub fn insert(&mut self, at: usize, text: String) {
        let n = self.list.len();
        self.list.push((at, at, n, text));
    }

    /// The text with every edit made; edits that overlap are an error (a bug of the caller).
    pub fn apply(mut self, text: &str) -> Result<String, String> {
        self.list.sort_by_key(|&(s, e, n, _)| (s, e, n));
        for w in self.list.windows(2) {
            if w[0].1 > w[1].0 {
                return Err(format!("two edits of the trace overlap (bytes {}..{} and {}..{})", w[0].0, w[0].1, w[1].0, w[1].1));
            }
        }
        let mut out = String::with_capacity(text.len() + self.list.iter().map(|e| e.3.len()).sum::<usize>());
        let mut at = 0;
        for (s, e, _, t) in &self.list {
            out.push_str(&text[at..*s]);
            out.push_str(t);
            at = *e;
        }
        out.push_str(&text[at..]);
        Ok(out)
    }
}

/// The indentation of the line holding byte `pos`, and whether only that indentation comes
/// before `pos` on it.
pub fn line_indent(text: &str, pos: usize) -> (String, bool) {
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..pos];
    let indent: String = line.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    let alone = indent.len() == line.len();
    (indent, alone)
}

/// The document's unit of indentation: that of the top-level object's first member (two
/// spaces when it has none on a line of its own).
pub fn doc_unit(text: &str, root: &Node) -> String {
    match root.members().first() {
        Some(m) => match line_indent(text, m.key_start) {
            (i, true) if !i.is_empty() => i,
            _ => "  ".into(),
        },
        None => "  ".into(),
    }
}

/// The layout of `node`'s text: pretty when it opens with a line break after its bracket, with
/// the indentation of the line it starts on and the step to its contents.
pub fn layout_of(text: &str, node: &Node, unit: &str) -> Layout {
    let body = &text[node.start..node.end];
    let opens_line = matches!(node.kind, Kind::Object(_) | Kind::Array(_)) && body[1..].trim_start_matches([' ', '\t']).starts_with(['\n', '\r']);
    if !opens_line {
        return Layout::Compact;
    }
    let (indent, _) = line_indent(text, node.start);
    // The step from the value's line to its first member or item.
    let first = match &node.kind {
        Kind::Object(ms) => ms.first().map(|m| m.key_start),
        Kind::Array(items) => items.first().map(|n| n.start),
        Kind::Scalar => None,
    };
    let unit = first
        .map(|p| line_indent(text, p).0)
        .and_then(|inner| inner.strip_prefix(indent.as_str()).filter(|u| !u.is_empty()).map(str::to_string))
        .unwrap_or_else(|| unit.to_string());
    Layout::Pretty { indent, unit }
}

/// The layout for a value placed where `neighbour` is: pretty, at the indentation of the line
/// the neighbour starts, when the neighbour is; else on one line.
fn layout_beside(text: &str, neighbour: &Node, unit: &str) -> Layout {
    match layout_of(text, neighbour, unit) {
        Layout::Pretty { unit, .. } => Layout::Pretty { indent: line_indent(text, neighbour.start).0, unit },
        Layout::Compact => Layout::Compact,
    }
}

/// Inserts `values` into array `arr` before its item `index` (at its end when `index` is its
/// length), laid out like the item beside them.
pub fn array_insert(text: &str, arr: &Node, index: usize, values: &[V], unit: &str, edits: &mut Edits) {
    if values.is_empty() {
        return;
    }
    let items = arr.items();
    if items.is_empty() {
        edits.replace(arr, render(&V::Arr(values.to_vec()), &Layout::Compact));
        return;
    }
    let k = index.min(items.len());
    let neighbour = if k < items.len() { &items[k] } else { &items[items.len() - 1] };
    let layout = layout_beside(text, neighbour, unit);
    let (indent, alone) = line_indent(text, neighbour.start);
    let sep = if alone { format!(",\n{indent}") } else { ", ".to_string() };
    if k < items.len() {
        let body: String = values.iter().map(|v| format!("{}{sep}", render(v, &layout))).collect();
        edits.insert(neighbour.start, body);
    } else {
        let body: String = values.iter().map(|v| format!("{sep}{}", render(v, &layout))).collect();
        edits.insert(neighbour.end, body);
    }
}

/// Sets member `key` of object `obj` to `value`: its value replaced, or the member added after
/// the last one, laid out like it.
pub fn object_set(text: &str, obj: &Node, key: &str, value: &V, unit: &str, edits: &mut Edits) {
    object_set_after(text, obj, key, value, &[], unit, edits);
}

/// [`object_set`], a new member placed after the last of `after` the object has (the members
/// it belongs beside), else after its last member.
pub fn object_set_after(text: &str, obj: &Node, key: &str, value: &V, after: &[&str], unit: &str, edits: &mut Edits) {
    if let Some(m) = obj.member(key) {
        let layout = layout_beside(text, &m.value, unit);
        edits.replace(&m.value, render(value, &layout));
        return;
    }
    let members = obj.members();
    let Some(prev) = members.iter().rev().find(|m| after.contains(&m.key.as_str())).or(members.last()) else {
        edits.replace(obj, render(&V::Obj(vec![(key.to_string(), value.clone())]), &Layout::Compact));
        return;
    };
    let (indent, alone) = line_indent(text, prev.key_start);
    let k = V::str(key).text();
    let layout = match layout_of(text, obj, unit) {
        Layout::Pretty { unit, .. } if alone => Layout::Pretty { indent: indent.clone(), unit },
        _ => Layout::Compact,
    };
    // Inserted just after the value, before the comma that follows it (if any): the lines of
    // the members around it stay as they were.
    if alone {
        edits.insert(prev.value.end, format!(",\n{indent}{k}: {}", render(value, &layout)));
    } else {
        edits.insert(prev.value.end, format!(", {k}: {}", render(value, &layout)));
    }
}

/// Appends `values` to the array member `key` of `obj`, making the member when it is absent.
pub fn array_push(text: &str, obj: &Node, key: &str, values: &[V], unit: &str, edits: &mut Edits) {
    match obj.get(key) {
        Some(arr) if arr.is_array() => array_insert(text, arr, arr.items().len(), values, unit, edits),
        _ => object_set(text, obj, key, &V::Arr(values.to_vec()), unit, edits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(text: &str, f: impl Fn(&Node, &mut Edits)) -> String {
        let root = parse(text).unwrap();
        let mut e = Edits::default();
        f(&root, &mut e);
        e.apply(text).unwrap()
    }

    #[test]
    fn pretty_arrays_get_items_on_lines_of_their_own() {
        let text = "{\n  \"a\": [\n    {\n      \"x\": 1\n    },\n    {\n      \"x\": 2\n    }\n  ]\n}\n";
        let out = edit(text, |r, e| array_insert(text, r.get("a").unwrap(), 1, &[V::obj([("y", V::num(3))])], "  ", e));
        assert_eq!(out, "{\n  \"a\": [\n    {\n      \"x\": 1\n    },\n    {\n      \"y\": 3\n    },\n    {\n      \"x\": 2\n    }\n  ]\n}\n");
        let out = edit(text, |r, e| array_insert(text, r.get("a").unwrap(), 2, &[V::obj([("y", V::num(3))])], "  ", e));
        assert!(out.ends_with("      \"x\": 2\n    },\n    {\n      \"y\": 3\n    }\n  ]\n}\n"), "{out}");
    }

    #[test]
    fn one_line_items_stay_on_one_line() {
        let text = "{\"a\": [\n  {\"x\": 1},\n  {\"x\": 2}\n]}";
        let out = edit(text, |r, e| array_insert(text, r.get("a").unwrap(), 0, &[V::obj([("y", V::Arr(vec![V::num(3)]))])], "  ", e));
        assert_eq!(out, "{\"a\": [\n  {\"y\": [3]},\n  {\"x\": 1},\n  {\"x\": 2}\n]}");
        let out = edit(text, |r, e| object_set(text, &r.get("a").unwrap().items()[1], "z", &V::str("s"), "  ", e));
        assert_eq!(out, "{\"a\": [\n  {\"x\": 1},\n  {\"x\": 2, \"z\": \"s\"}\n]}");
    }

    #[test]
    fn members_are_added_after_the_last_and_replaced_in_place() {
        let text = "{\n  \"a\": 1,\n  \"b\": \"x\"\n}";
        let out = edit(text, |r, e| {
            object_set(text, r, "b", &V::str("y"), "  ", e);
            object_set(text, r, "c", &V::Arr(vec![V::num(1)]), "  ", e);
        });
        assert_eq!(out, "{\n  \"a\": 1,\n  \"b\": \"y\",\n  \"c\": [\n    1\n  ]\n}");
        let out = edit(text, |r, e| object_set_after(text, r, "a2", &V::num(2), &["a"], "  ", e));
        assert_eq!(out, "{\n  \"a\": 1,\n  \"a2\": 2,\n  \"b\": \"x\"\n}");
    }

    #[test]
    fn overlapping_edits_are_refused() {
        let text = "[1, 2]";
        let root = parse(text).unwrap();
        let mut e = Edits::default();
        e.replace(&root, "[]".into());
        e.replace(&root.items()[0], "3".into());
        assert!(e.apply(text).is_err());
    }
}
