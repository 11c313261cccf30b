//! A bound on the work of GLSL's preprocessor, checked before naga's GLSL front end runs.
//!
//! naga preprocesses GLSL with pp-rs, which expands macros without limit: fifteen lines of
//! `#define`s, each naming the one before ten times, expand to 10^11 tokens, which the front
//! end tries to hold in memory (the process aborts). pp-rs expands an object-like macro lazily
//! but a function-like macro's arguments fully, before anything is produced, so counting what it
//! produces cannot stop it in time. This module expands the source itself, by pp-rs's rules
//! (conditional groups, `#if` expressions as pp-rs's parser reads them, object-like and
//! function-like macros, arguments expanded before substitution and the result scanned again, a
//! macro never expanded inside itself), counting every token it makes, and stops at
//! [`MAX_EXPANDED_TOKENS`]. Where pp-rs reports an error and goes on (naga collects the errors
//! and keeps reading), this goes on the same way, down to what pp-rs's lexer refuses and how
//! much of a malformed directive it consumes: a source the limit lets through must not expand
//! further in naga. A test runs both over random programs and asks the same count of tokens,
//! errors or none (`against_pp_rs`). The errors themselves are left to the front end, which
//! reports them.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::error::ShaderError;

/// The most tokens preprocessing may make, counting those made while expanding arguments
/// (each is made again wherever it is substituted). Real compute shaders make thousands; a
/// million of naga's tokens is of the order of a hundred MiB.
pub(crate) const MAX_EXPANDED_TOKENS: u64 = 1 << 20;

/// How deeply macro arguments may hold macro invocations whose arguments hold invocations (each
/// level a recursion in the preprocessor, as in pp-rs).
pub(crate) const MAX_ARGUMENT_DEPTH: usize = 64;

/// How deeply an `#if` expression may nest parentheses and unary operators, macros expanded.
pub(crate) const MAX_EXPRESSION_DEPTH: usize = 256;

/// Refuses a GLSL source whose preprocessing makes more than [`MAX_EXPANDED_TOKENS`] tokens,
/// nests macro arguments more than [`MAX_ARGUMENT_DEPTH`] deep or an `#if` expression more than
/// [`MAX_EXPRESSION_DEPTH`], naming the line where it happens.
pub(crate) fn check_macro_expansion(source: &str, name: &str) -> Result<(), ShaderError> {
    match expand(source) {
        (Ok(_) | Err(Stop::PpError), _) => Ok(()),
        (Err(Stop::Tokens), line) => Err(refusal(name, line, format!("preprocessing makes more than {MAX_EXPANDED_TOKENS} tokens (macros expanding to exponentially many)"))),
        (Err(Stop::Depth), line) => Err(refusal(name, line, format!("macro arguments hold invocations nested more than {MAX_ARGUMENT_DEPTH} deep"))),
        (Err(Stop::Expression), line) => Err(refusal(name, line, format!("an #if expression nests parentheses and unary operators more than {MAX_EXPRESSION_DEPTH} deep"))),
    }
}

/// Expands `source` to its end or to a limit: how many tokens the preprocessor hands on, or
/// why it stopped; and the line it had reached.
fn expand(source: &str) -> (Result<u64, Stop>, u32) {
    let text = Text::new(source);
    let mut top = Directives::new(&text);
    let mut work = Work { made: 0, line: 1 };
    let mut processor = Processor::default();
    let mut handed_on = 0;
    let result = loop {
        match processor.next_expanded(&mut top, &mut work, 0) {
            Ok(Some(_)) => handed_on += 1,
            Ok(None) => break Ok(handed_on),
            // pp-rs reports an error there and goes on (naga collects the errors), so the
            // expansion goes on here too.
            Err(Stop::PpError) => {}
            Err(e) => break Err(e),
        }
    };
    (result, work.line)
}

/// The error for a source refused at `line`.
fn refusal(name: &str, line: u32, what: String) -> ShaderError {
    ShaderError::Parse { name: name.to_string(), message: format!("{name}:{line}: {what}") }
}

/// Why the expansion stopped, for good or (`PpError`) for the moment.
#[derive(Debug)]
enum Stop {
    /// Past [`MAX_EXPANDED_TOKENS`].
    Tokens,
    /// Past [`MAX_ARGUMENT_DEPTH`].
    Depth,
    /// Past [`MAX_EXPRESSION_DEPTH`].
    Expression,
    /// An error pp-rs reports there (a malformed directive, call or `#if` expression, a token
    /// its lexer refuses), after which it goes on, and so does the expansion here.
    PpError,
}

/// The tokens made so far, and the source line being expanded (for the message).
struct Work {
    made: u64,
    line: u32,
}

impl Work {
    /// Counts one token made (or one parameter substituted), or stops past the limit.
    fn count(&mut self) -> Result<(), Stop> {
        self.made += 1;
        if self.made > MAX_EXPANDED_TOKENS { Err(Stop::Tokens) } else { Ok(()) }
    }
}

/// The source with its line ends made `\n` (a CR LF, an LF CR and a lone CR each one, as pp-rs
/// makes them), then every backslash-newline removed (GLSL's line continuation), and where they
/// were, so that lines are counted as pp-rs counts them.
struct Text {
    cleaned: String,
    /// Offsets in `cleaned` at which a continuation was removed.
    joins: Vec<usize>,
}

impl Text {
    fn new(source: &str) -> Text {
        let lines;
        let source = if source.contains('\r') {
            lines = source.replace("\r\n", "\n").replace("\n\r", "\n").replace('\r', "\n");
            &lines
        } else {
            source
        };
        let mut cleaned = String::with_capacity(source.len());
        let mut joins = Vec::new();
        let mut rest = source;
        while let Some(at) = rest.find("\\\n") {
            cleaned.push_str(&rest[..at]);
            joins.push(cleaned.len());
            rest = &rest[at + 2..];
        }
        cleaned.push_str(rest);
        Text { cleaned, joins }
    }

    /// The source line of a newline count at `offset` in `cleaned`.
    fn line(&self, newlines: u32, offset: usize) -> u32 {
        1 + newlines + self.joins.partition_point(|&j| j <= offset) as u32
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Ident,
    Number,
    Punct,
    Newline,
    /// What pp-rs's lexer refuses.
    Error,
}

/// A preprocessing token: its kind and text, and whether white space came before it (which
/// tells `#define F(x)` from `#define F (x)`).
#[derive(Clone, Copy, Debug)]
struct Tok<'a> {
    kind: Kind,
    text: &'a str,
    spaced: bool,
}

impl Tok<'_> {
    fn is(&self, punct: &str) -> bool {
        self.kind == Kind::Punct && self.text == punct
    }
}

/// Splits the cleaned source into preprocessing tokens as pp-rs's lexer does, comments read as
/// white space. What that lexer refuses (a character that starts no token, a malformed number)
/// is a token of [`Kind::Error`], covering what it consumed.
struct Lexer<'a> {
    src: &'a str,
    at: usize,
    newlines: u32,
}

/// Punctuators, longest first: what pp-rs's lexer knows, and `#` (`.` is read apart, as it may
/// start a number).
const PUNCTS: [&str; 45] = [
    "<<=", ">>=", "<<", ">>", "<=", ">=", "++", "+=", "--", "-=", "&&", "&=", "||", "|=", "^^", "^=", "==", "!=", "*=", "/=", "%=", "<", ">", "+", "-", "&", "|", "^", "=", "!", "*", "/", "%", "(", ")",
    "{", "}", "[", "]", ",", ";", ":", "~", "?", "#",
];

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Lexer<'a> {
        Lexer { src, at: 0, newlines: 0 }
    }

    fn peek(&self) -> Option<char> {
        self.src[self.at..].chars().next()
    }

    /// Consumes the next character if `f` accepts it.
    fn eat(&mut self, f: impl Fn(char) -> bool) -> bool {
        match self.peek() {
            Some(c) if f(c) => {
                self.at += c.len_utf8();
                true
            }
            _ => false,
        }
    }

    fn eat_all(&mut self, f: impl Fn(char) -> bool) {
        while self.eat(&f) {}
    }

    /// Consumes one character as pp-rs's lexer sees them: a comment is one.
    fn skip_one(&mut self) {
        let rest = &self.src[self.at..];
        if rest.starts_with("//") {
            self.at += rest.find('\n').unwrap_or(rest.len());
        } else if let Some(inner) = rest.strip_prefix("/*") {
            let len = inner.find("*/").map_or(rest.len(), |e| 2 + e + 2);
            self.newlines += rest[..len].bytes().filter(|&b| b == b'\n').count() as u32;
            self.at += len;
        } else if let Some(c) = rest.chars().next() {
            if c == '\n' {
                self.newlines += 1;
            }
            self.at += c.len_utf8();
        }
    }

    fn next(&mut self) -> Option<Tok<'a>> {
        let mut spaced = false;
        loop {
            let rest = &self.src[self.at..];
            match rest.as_bytes() {
                [] => return None,
                [b'\n', ..] => {
                    self.at += 1;
                    self.newlines += 1;
                    return Some(Tok { kind: Kind::Newline, text: "\n", spaced });
                }
                [b' ' | b'\t' | 0x0b | 0x0c, ..] | [b'/', b'/' | b'*', ..] => self.skip_one(),
                _ => break,
            }
            spaced = true;
        }
        let start = self.at;
        let c = self.peek()?;
        let kind = if c.is_ascii_digit() || (c == '.' && self.src[start + 1..].starts_with(|d: char| d.is_ascii_digit())) {
            self.number()
        } else if c == '.' {
            self.at += 1;
            Kind::Punct
        } else if unicode_xid::UnicodeXID::is_xid_start(c) || c == '_' {
            self.at += c.len_utf8();
            self.eat_all(unicode_xid::UnicodeXID::is_xid_continue);
            Kind::Ident
        } else if let Some(p) = PUNCTS.iter().find(|p| self.src[start..].starts_with(*p)) {
            self.at += p.len();
            Kind::Punct
        } else {
            // pp-rs reads three characters before it finds that none starts a token, and does
            // not put them back.
            for _ in 0..3 {
                self.skip_one();
            }
            Kind::Error
        };
        Some(Tok { kind, text: &self.src[start..self.at], spaced })
    }

    /// A number from its first character, as pp-rs's `parse_number` reads it: a token of
    /// [`Kind::Number`], or of [`Kind::Error`] where pp-rs refuses it.
    fn number(&mut self) -> Kind {
        let start = self.at;
        let digits = |c: char| c.is_ascii_digit();
        let first = self.peek().unwrap_or('0');
        self.at += 1;
        let mut radix = 10;
        if first == '0' {
            if self.eat(|c| c == 'x' || c == 'X') {
                self.eat_all(|c| c.is_ascii_hexdigit());
                radix = 16;
            } else if self.peek().is_some_and(digits) {
                radix = 8;
            }
        }
        let mut float = first == '.';
        if !float {
            self.eat_all(digits);
            float = self.eat(|c| c == '.');
        }
        if float {
            self.eat_all(digits);
        }
        if (float || radix != 16) && self.eat(|c| c == 'e' || c == 'E') {
            float = true;
            self.eat(|c| c == '+' || c == '-');
            self.eat_all(digits);
        }
        let raw = &self.src[start..self.at];
        if float {
            if matches!(self.peek(), Some('l' | 'L' | 'h' | 'H')) {
                return Kind::Error;
            }
            self.eat(|c| c == 'f' || c == 'F');
            // pp-rs parses what it read with Rust's f32 parser, less a hexadecimal `x` and with
            // `e` for either case of the exponent.
            let read = if radix == 16 { format!("0{}", &raw[2..]) } else { raw.to_string() };
            return if read.replace('E', "e").parse::<f32>().is_ok() { Kind::Number } else { Kind::Error };
        }
        self.eat(|c| c == 'u' || c == 'U');
        if matches!(self.peek(), Some('l' | 'L' | 's' | 'S')) {
            return Kind::Error;
        }
        if parse_integer(raw).is_some() { Kind::Number } else { Kind::Error }
    }
}

/// A `#define`.
#[derive(Debug)]
struct Define<'a> {
    name: &'a str,
    function_like: bool,
    params: Vec<&'a str>,
    body: Vec<Tok<'a>>,
}

/// Where a [`Processor`] takes its tokens from, and which macros it may expand there.
trait Source<'a> {
    /// The next token, `None` at the end, or an error pp-rs reports where a token would be.
    fn next(&mut self, work: &mut Work) -> Result<Option<Tok<'a>>, Stop>;
    /// The macro `name`, if it is one here.
    fn define(&self, name: &str) -> Option<Rc<Define<'a>>>;
}

/// A conditional group, as pp-rs's `DirectiveBlock`.
struct Block {
    /// A branch of it has been taken.
    taken: bool,
    had_else: bool,
    /// It lies in a branch not taken: none of its branches is.
    outer_skipped: bool,
}

/// The source itself, directives carried out: pp-rs's `DirectiveProcessor`, which on an error
/// reports it and goes on (naga collects the errors); so does this. A malformed directive's line
/// is consumed as far as pp-rs reads it, and the rest is source.
struct Directives<'a, 't> {
    lexer: Lexer<'a>,
    text: &'t Text,
    defines: HashMap<&'a str, Rc<Define<'a>>>,
    blocks: Vec<Block>,
    skipping: bool,
    /// Tokens to hand on before reading further (in reverse order): what pp-rs reads as source
    /// of a malformed directive's line, or the token `#version`, `#extension` and `#pragma` make.
    pending: Vec<Tok<'a>>,
    line_start: bool,
    /// The line of the last token read, for the message.
    line: u32,
}

impl<'a, 't> Directives<'a, 't> {
    fn new(text: &'t Text) -> Directives<'a, 't>
    where
        't: 'a,
    {
        Directives { lexer: Lexer::new(&text.cleaned), text, defines: HashMap::new(), blocks: Vec::new(), skipping: false, pending: Vec::new(), line_start: true, line: 1 }
    }

    fn raw(&mut self) -> Option<Tok<'a>> {
        let t = self.lexer.next();
        self.line = self.text.line(self.lexer.newlines, self.lexer.at);
        t
    }

    /// The rest of the directive's line.
    fn line_tokens(&mut self) -> Vec<Tok<'a>> {
        let mut v = Vec::new();
        while let Some(t) = self.raw() {
            if t.kind == Kind::Newline {
                break;
            }
            v.push(t);
        }
        v
    }

    /// Hands on `tokens` as source (unless skipping): the rest of a line pp-rs stopped reading
    /// as a directive.
    fn as_source(&mut self, tokens: &[Tok<'a>]) {
        if !self.skipping {
            self.pending.extend(tokens.iter().rev());
        }
    }

    /// Carries out the directive after a `#` at the start of a line; whether pp-rs reports an
    /// error for it (it then goes on as here).
    fn directive(&mut self, work: &mut Work) -> Result<bool, Stop> {
        let line = self.line_tokens();
        // A `#` alone is an error to pp-rs (outside a skipped group).
        let Some(first) = line.first() else { return Ok(!self.skipping) };
        let args = &line[1..];
        // Skipped, a directive that opens or closes no group is read only for its end, where
        // a token the lexer refuses is still an error.
        let lexer_error = args.iter().any(|t| t.kind == Kind::Error);
        if first.kind != Kind::Ident {
            self.as_source(args);
            return Ok(!self.skipping || first.kind == Kind::Error);
        }
        // Where pp-rs's reading of the line fails: the line up to there is consumed, the rest is
        // read as source. `gather`: the first token it cannot hand on (a `#`, a refused one).
        let gather = args.iter().position(|t| t.kind == Kind::Error || t.is("#"));
        let fail = |this: &mut Self, consumed: usize| {
            this.as_source(&args[consumed.min(args.len())..]);
            Ok(true)
        };
        let ident = |i: usize| args.get(i).filter(|t| t.kind == Kind::Ident);
        match first.text {
            "if" | "ifdef" | "ifndef" if self.skipping => {
                self.blocks.push(Block { taken: false, had_else: false, outer_skipped: true });
                Ok(lexer_error)
            }
            "elif" => {
                // pp-rs skips from here on, even when the `#elif` is out of place.
                self.skipping = true;
                let Some(block) = self.blocks.last() else { return Ok(true) };
                if block.had_else {
                    return Ok(true);
                }
                if block.outer_skipped || block.taken {
                    return Ok(lexer_error);
                }
                if let Some(j) = gather {
                    return fail(self, j + 1);
                }
                match self.evaluate(args, work, true) {
                    Ok(0) => Ok(false),
                    Ok(_) => {
                        self.skipping = false;
                        if let Some(b) = self.blocks.last_mut() {
                            b.taken = true;
                        }
                        Ok(false)
                    }
                    Err(Stop::PpError) => Ok(true),
                    Err(e) => Err(e),
                }
            }
            "endif" => {
                let Some(block) = self.blocks.pop() else { return fail(self, 0) };
                self.skipping = block.outer_skipped;
                match args.first() {
                    None => Ok(false),
                    Some(_) if self.skipping => Ok(lexer_error),
                    Some(_) => fail(self, 1),
                }
            }
            "else" => {
                if !args.is_empty() {
                    return fail(self, 1);
                }
                match self.blocks.last_mut() {
                    Some(block) if !block.had_else => {
                        self.skipping = block.outer_skipped || block.taken;
                        block.had_else = true;
                        Ok(false)
                    }
                    _ => Ok(true),
                }
            }
            _ if self.skipping => Ok(lexer_error),
            "define" => match parse_define(args) {
                Ok(define) => match self.defines.get(define.name) {
                    // pp-rs keeps the first definition, and refuses one that differs.
                    Some(old) => Ok(!same_definition(old, &define)),
                    None => {
                        self.defines.insert(define.name, Rc::new(define));
                        Ok(false)
                    }
                },
                Err(consumed) => fail(self, consumed),
            },
            "undef" => {
                let Some(name) = ident(0) else { return fail(self, 1) };
                self.defines.remove(name.text);
                if args.len() > 1 { fail(self, 2) } else { Ok(false) }
            }
            "ifdef" | "ifndef" => {
                let Some(name) = ident(0) else { return fail(self, 1) };
                if args.len() > 1 {
                    return fail(self, 2);
                }
                let taken = self.defines.contains_key(name.text) == (first.text == "ifdef");
                self.open_group(taken);
                Ok(false)
            }
            "if" => {
                if let Some(j) = gather {
                    return fail(self, j + 1);
                }
                let taken = match self.evaluate(args, work, true) {
                    Ok(v) => v != 0,
                    // pp-rs opens no group for a failed `#if`.
                    Err(Stop::PpError) => return Ok(true),
                    Err(e) => return Err(e),
                };
                self.open_group(taken);
                Ok(false)
            }
            // `#line` evaluates its operand as an expression, macros expanded, and a second one
            // (a source number) if more follows.
            "line" => {
                if let Some(j) = gather {
                    return fail(self, j + 1);
                }
                match self.line_operands(args, work) {
                    Ok(()) => Ok(false),
                    Err(Stop::PpError) => Ok(true),
                    Err(e) => Err(e),
                }
            }
            // Handed on as one token each (naga reads them).
            "version" | "extension" | "pragma" => {
                if let Some(j) = gather {
                    return fail(self, j + 1);
                }
                // Not an identifier: naga reads it, no macro can be called so.
                self.pending.push(Tok { kind: Kind::Punct, ..*first });
                Ok(false)
            }
            // `#error`, and directives pp-rs does not know: an error, and the line's tokens
            // after the name are read as source.
            _ => fail(self, 0),
        }
    }

    /// Opens a conditional group (outside a skipped one) whose first branch is `taken` or not.
    fn open_group(&mut self, taken: bool) {
        self.skipping = !taken;
        self.blocks.push(Block { taken, had_else: false, outer_skipped: false });
    }

    /// The value of an `#if` or `#elif` expression (`parsing_if`), or of a `#line` operand, as
    /// pp-rs's `IfParser` finds it: macros expanded, `defined` read before expansion, other
    /// identifiers 0 in `#if` and errors in `#line`, arithmetic that overflows or divides by
    /// zero an error.
    fn evaluate(&self, tokens: &[Tok<'a>], work: &mut Work, parsing_if: bool) -> Result<i64, Stop> {
        let none = HashSet::new();
        let mut stream = IfTokens::new(tokens, self, &none, parsing_if);
        let value = stream.expression(work, 0, 0)?;
        if stream.peek(work)?.is_some() {
            return Err(Stop::PpError);
        }
        Ok(value)
    }

    /// `#line`'s operands, as pp-rs reads them.
    fn line_operands(&self, tokens: &[Tok<'a>], work: &mut Work) -> Result<(), Stop> {
        let none = HashSet::new();
        let mut stream = IfTokens::new(tokens, self, &none, false);
        let line = stream.expression(work, 0, 0)?;
        if line as u64 >= 1 << 32 {
            return Err(Stop::PpError);
        }
        if stream.peek(work)?.is_some() {
            stream.expression(work, 0, 0)?;
        }
        if stream.peek(work)?.is_some() {
            return Err(Stop::PpError);
        }
        Ok(())
    }
}

/// Whether two definitions are the same, as pp-rs compares them (a redefinition must be).
fn same_definition(a: &Define<'_>, b: &Define<'_>) -> bool {
    a.function_like == b.function_like && a.params == b.params && a.body.len() == b.body.len() && a.body.iter().zip(&b.body).all(|(x, y)| x.kind == y.kind && x.text == y.text)
}

/// A `#define`'s name, parameters and body from the tokens after `define`, or where pp-rs's
/// reading of them fails: how many it consumed.
fn parse_define<'a>(args: &[Tok<'a>]) -> Result<Define<'a>, usize> {
    let name = args.first().filter(|t| t.kind == Kind::Ident).ok_or(1usize)?;
    let mut params: Vec<&'a str> = Vec::new();
    let mut at = 1;
    let function_like = args.get(1).is_some_and(|t| t.is("(") && !t.spaced);
    if function_like {
        // `(`, then `)` or names between commas, each once, then `)`.
        at = 2;
        loop {
            let Some(t) = args.get(at) else { return Err(at) };
            at += 1;
            if t.is(")") {
                break;
            } else if t.kind == Kind::Ident && params.is_empty() {
                params.push(t.text);
            } else if t.is(",") && !params.is_empty() {
                match args.get(at) {
                    Some(n) if n.kind == Kind::Ident && !params.contains(&n.text) => params.push(n.text),
                    _ => return Err(at + 1),
                }
                at += 1;
            } else {
                return Err(at);
            }
        }
    }
    let body = &args[at..];
    if let Some(j) = body.iter().position(|t| t.kind == Kind::Error || t.is("#")) {
        return Err(at + j + 1);
    }
    Ok(Define { name: name.text, function_like, params, body: body.to_vec() })
}

impl<'a> Source<'a> for Directives<'a, '_> {
    fn next(&mut self, work: &mut Work) -> Result<Option<Tok<'a>>, Stop> {
        loop {
            // A malformed directive's tokens first, read as the line's own would be.
            let (t, from_line) = match self.pending.pop() {
                Some(t) => (t, false),
                None => match self.raw() {
                    Some(t) => (t, true),
                    None => return Ok(None),
                },
            };
            work.line = self.line;
            // The directive's line has ended (its newline read) before its tokens are handed on.
            let line_start = self.line_start;
            if from_line {
                self.line_start = t.kind == Kind::Newline;
            }
            match t.kind {
                Kind::Newline => {}
                _ if from_line && line_start && t.is("#") => {
                    let error = self.directive(work)?;
                    self.line_start = true;
                    // pp-rs hands on the error where a token would be (a function-like macro's
                    // name before it is then no call), then what it reads next.
                    if error {
                        return Err(Stop::PpError);
                    }
                }
                // pp-rs reports what its lexer refuses even in a skipped group, and a `#` that
                // starts no directive outside one.
                Kind::Error => return Err(Stop::PpError),
                _ if t.is("#") && !self.skipping => return Err(Stop::PpError),
                _ => {
                    if !self.skipping {
                        return Ok(Some(t));
                    }
                }
            }
        }
    }

    fn define(&self, name: &str) -> Option<Rc<Define<'a>>> {
        self.defines.get(name).cloned()
    }
}

/// A macro being expanded: where its body is, and its arguments, expanded.
struct Invocation<'a> {
    define: Rc<Define<'a>>,
    at: usize,
    args: Vec<Vec<Tok<'a>>>,
    /// The argument being substituted, and where in it.
    arg: Option<(usize, usize)>,
}

/// pp-rs's `MacroProcessor`: the macros being expanded, innermost last, and their names (a
/// macro is not expanded again inside itself).
#[derive(Default)]
struct Processor<'a> {
    invocations: Vec<Invocation<'a>>,
    expanding: HashSet<&'a str>,
    peeked: Option<Tok<'a>>,
    /// An error read where a `(` was looked for, to hand on next.
    peeked_error: bool,
}

impl<'a> Processor<'a> {
    /// The next token, from the innermost invocation or else from `source`, before expansion.
    fn next_raw(&mut self, source: &mut dyn Source<'a>, work: &mut Work) -> Result<Option<Tok<'a>>, Stop> {
        self.step(source, work, false)
    }

    /// [`Processor::next_raw`]; with `end_at_step`, `None` where pp-rs's `MacroProcessor` takes
    /// a step that yields no token (an argument's substitution starting or ending, an
    /// invocation ending), which its `#if` parser takes for the end of the expression.
    fn step(&mut self, source: &mut dyn Source<'a>, work: &mut Work, end_at_step: bool) -> Result<Option<Tok<'a>>, Stop> {
        if std::mem::take(&mut self.peeked_error) {
            return Err(Stop::PpError);
        }
        if let Some(t) = self.peeked.take() {
            return Ok(Some(t));
        }
        while let Some(inv) = self.invocations.last_mut() {
            if let Some((a, pos)) = inv.arg {
                if let Some(&t) = inv.args[a].get(pos) {
                    inv.arg = Some((a, pos + 1));
                    work.count()?;
                    return Ok(Some(t));
                }
                inv.arg = None;
            } else if let Some(&t) = inv.define.body.get(inv.at) {
                inv.at += 1;
                match inv.define.params.iter().position(|&p| p == t.text) {
                    Some(p) if t.kind == Kind::Ident && p < inv.args.len() => {
                        // Counted, though it makes no token: a body of many parameters
                        // substituted by empty arguments is work all the same.
                        work.count()?;
                        inv.arg = Some((p, 0));
                    }
                    _ => {
                        work.count()?;
                        return Ok(Some(t));
                    }
                }
            } else if let Some(done) = self.invocations.pop() {
                self.expanding.remove(done.define.name);
            }
            if end_at_step {
                return Ok(None);
            }
        }
        // The source's own tokens are not counted: the cap on a shader file's size bounds them.
        source.next(work)
    }

    /// The next token that does not start a macro invocation (invocations are started and
    /// expanded on the way): what the preprocessor hands on.
    fn next_expanded(&mut self, source: &mut dyn Source<'a>, work: &mut Work, depth: usize) -> Result<Option<Tok<'a>>, Stop> {
        loop {
            let Some(t) = self.next_raw(source, work)? else { return Ok(None) };
            if t.kind == Kind::Ident && self.start(t.text, source, work, depth)? {
                continue;
            }
            return Ok(Some(t));
        }
    }

    /// Starts expanding `name` if it is a macro not being expanded (a function-like one only
    /// when `(` follows); whether it did.
    fn start(&mut self, name: &str, source: &mut dyn Source<'a>, work: &mut Work, depth: usize) -> Result<bool, Stop> {
        if self.expanding.contains(name) {
            return Ok(false);
        }
        let Some(define) = source.define(name) else { return Ok(false) };
        let mut args = Vec::new();
        if define.function_like {
            match self.next_raw(source, work) {
                Ok(Some(t)) if t.is("(") => {}
                Ok(other) => {
                    self.peeked = other;
                    return Ok(false);
                }
                // pp-rs keeps the error to hand on next, as it keeps a token.
                Err(Stop::PpError) => {
                    self.peeked_error = true;
                    return Ok(false);
                }
                Err(e) => return Err(e),
            }
            if depth >= MAX_ARGUMENT_DEPTH {
                return Err(Stop::Depth);
            }
            // The arguments, split at commas outside parentheses.
            let mut raw: Vec<Vec<Tok<'a>>> = vec![Vec::new()];
            let mut nesting = 0usize;
            loop {
                let Some(t) = self.next_raw(source, work)? else { return Err(Stop::PpError) };
                if t.is("(") {
                    nesting += 1;
                } else if t.is(")") {
                    if nesting == 0 {
                        break;
                    }
                    nesting -= 1;
                } else if t.is(",") && nesting == 0 {
                    raw.push(Vec::new());
                    continue;
                }
                raw.last_mut().expect("one argument at least").push(t);
            }
            // pp-rs refuses a call with too few arguments, or too many (but one empty argument
            // for no parameters), and goes on after it.
            let params = define.params.len();
            if raw.len() < params || (raw.len() > params && !(params == 0 && raw.len() == 1 && raw[0].is_empty())) {
                return Err(Stop::PpError);
            }
            // Each argument expanded on its own, fully, before substitution, where the macros
            // being expanded around it are not expanded.
            for arg in raw {
                let mut slice = TokenList { tokens: &arg, at: 0, outer: &*source, hidden: &self.expanding };
                let mut inner = Processor::default();
                let mut expanded = Vec::new();
                while let Some(t) = inner.next_expanded(&mut slice, work, depth + 1)? {
                    work.count()?;
                    expanded.push(t);
                }
                args.push(expanded);
            }
        }
        self.expanding.insert(define.name);
        self.invocations.push(Invocation { define, at: 0, args, arg: None });
        Ok(true)
    }
}

/// A list of tokens read as source (a macro argument, an `#if` or `#line` operand), with the
/// macros of the source around it (`outer`) less those being expanded there (`hidden`).
struct TokenList<'a, 's> {
    tokens: &'s [Tok<'a>],
    at: usize,
    outer: &'s dyn Source<'a>,
    hidden: &'s HashSet<&'a str>,
}

impl<'a> Source<'a> for TokenList<'a, '_> {
    fn next(&mut self, _: &mut Work) -> Result<Option<Tok<'a>>, Stop> {
        let t = self.tokens.get(self.at).copied();
        self.at += 1;
        Ok(t)
    }

    fn define(&self, name: &str) -> Option<Rc<Define<'a>>> {
        if self.hidden.contains(name) { None } else { self.outer.define(name) }
    }
}

/// The tokens of an `#if` expression, macros expanded, and its evaluation (C's operators on
/// 64-bit integers, as pp-rs's `IfParser`).
struct IfTokens<'a, 's> {
    source: TokenList<'a, 's>,
    processor: Processor<'a>,
    peeked: Option<Tok<'a>>,
    /// In `#if` (not `#line`), an identifier that is no macro is 0.
    parsing_if: bool,
}

impl<'a, 's> IfTokens<'a, 's> {
    /// The expression `tokens`, where `outer`'s macros but `hidden` are in force (the callers,
    /// `#if` and `#line`, hide none), read as `#if` reads it or (`parsing_if` false) as `#line`.
    fn new(tokens: &'s [Tok<'a>], outer: &'s dyn Source<'a>, hidden: &'s HashSet<&'a str>, parsing_if: bool) -> Self {
        IfTokens { source: TokenList { tokens, at: 0, outer, hidden }, processor: Processor::default(), peeked: None, parsing_if }
    }

    fn next(&mut self, work: &mut Work) -> Result<Option<Tok<'a>>, Stop> {
        if let Some(t) = self.peeked.take() {
            return Ok(Some(t));
        }
        loop {
            let Some(t) = self.processor.step(&mut self.source, work, true)? else { return Ok(None) };
            if t.kind == Kind::Ident && t.text == "defined" {
                return Ok(Some(t));
            }
            if t.kind == Kind::Ident {
                if self.processor.start(t.text, &mut self.source, work, 0)? {
                    continue;
                }
                // An identifier that is no macro counts as 0 in `#if`.
                if !self.parsing_if {
                    return Err(Stop::PpError);
                }
                return Ok(Some(Tok { kind: Kind::Number, text: "0", spaced: t.spaced }));
            }
            return Ok(Some(t));
        }
    }

    fn peek(&mut self, work: &mut Work) -> Result<Option<Tok<'a>>, Stop> {
        let t = self.next(work)?;
        self.peeked = t;
        Ok(t)
    }

    /// The expression from operator level `level` of [`LEVELS`] down, `depth` parentheses and
    /// unary operators deep. Recursive descent, a function a level, as pp-rs's parser is: each
    /// level looks at the next token once more when its operands end, and where an expansion
    /// ends that look finds nothing ([`Processor::step`]), so the shape decides what it reads.
    fn expression(&mut self, work: &mut Work, level: usize, depth: usize) -> Result<i64, Stop> {
        let Some(ops) = LEVELS.get(level) else { return self.unary(work, depth) };
        let mut lhs = self.expression(work, level + 1, depth)?;
        while let Some(op) = self.peek(work)?
            && op.kind == Kind::Punct
            && ops.contains(&op.text)
        {
            self.peeked = None;
            let rhs = self.expression(work, level + 1, depth)?;
            lhs = apply(op.text, lhs, rhs).ok_or(Stop::PpError)?;
        }
        Ok(lhs)
    }

    fn unary(&mut self, work: &mut Work, depth: usize) -> Result<i64, Stop> {
        // Macros can nest parentheses deeper than the source does: bounded, as pp-rs's parser
        // (which recurses as this one does) needs.
        if depth >= MAX_EXPRESSION_DEPTH {
            return Err(Stop::Expression);
        }
        let Some(t) = self.next(work)? else { return Err(Stop::PpError) };
        match (t.kind, t.text) {
            (Kind::Number, text) => parse_integer(text).ok_or(Stop::PpError),
            (Kind::Ident, "defined") => {
                // The name is read as it stands, not expanded.
                let mut name = self.processor.step(&mut self.source, work, true)?.ok_or(Stop::PpError)?;
                let parenthesized = name.is("(");
                if parenthesized {
                    name = self.processor.step(&mut self.source, work, true)?.ok_or(Stop::PpError)?;
                }
                if name.kind != Kind::Ident {
                    return Err(Stop::PpError);
                }
                // pp-rs reads the `)` with expansion.
                if parenthesized && !self.next(work)?.is_some_and(|t| t.is(")")) {
                    return Err(Stop::PpError);
                }
                Ok(i64::from(self.source.define(name.text).is_some()))
            }
            (Kind::Punct, "(") => {
                let v = self.expression(work, 0, depth + 1)?;
                if !self.next(work)?.is_some_and(|t| t.is(")")) {
                    return Err(Stop::PpError);
                }
                Ok(v)
            }
            (Kind::Punct, "!") => Ok(i64::from(self.unary(work, depth + 1)? == 0)),
            (Kind::Punct, "~") => Ok(!self.unary(work, depth + 1)?),
            (Kind::Punct, "-") => Ok(self.unary(work, depth + 1)?.wrapping_neg()),
            (Kind::Punct, "+") => self.unary(work, depth + 1),
            _ => Err(Stop::PpError),
        }
    }
}

/// The binary operators of `#if` expressions, loosest first (C's precedence).
const LEVELS: [&[&str]; 10] = [&["||"], &["&&"], &["|"], &["^"], &["&"], &["==", "!="], &["<", ">", "<=", ">="], &["<<", ">>"], &["+", "-"], &["*", "/", "%"]];

fn apply(op: &str, a: i64, b: i64) -> Option<i64> {
    Some(match op {
        "*" => a.checked_mul(b)?,
        "/" => a.checked_div(b)?,
        "%" => a.checked_rem(b)?,
        "+" => a.checked_add(b)?,
        "-" => a.checked_sub(b)?,
        "<<" => a.checked_shl(u32::try_from(b).ok()?)?,
        ">>" => a.checked_shr(u32::try_from(b).ok()?)?,
        "<" => i64::from(a < b),
        ">" => i64::from(a > b),
        "<=" => i64::from(a <= b),
        ">=" => i64::from(a >= b),
        "==" => i64::from(a == b),
        "!=" => i64::from(a != b),
        "&" => a & b,
        "^" => a ^ b,
        "|" => a | b,
        "&&" => i64::from(a != 0 && b != 0),
        "||" => i64::from(a != 0 || b != 0),
        _ => return None,
    })
}

/// A decimal, octal or hexadecimal integer literal, with an optional `u`/`U` suffix.
fn parse_integer(text: &str) -> Option<i64> {
    let t = text.strip_suffix(['u', 'U']).unwrap_or(text);
    let v = if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()?
    } else if t.len() > 1 && t.starts_with('0') {
        u64::from_str_radix(&t[1..], 8).ok()?
    } else {
        t.parse::<u64>().ok()?
    };
    Some(v as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens handed on, or why and where the expansion stopped.
    fn tokens(src: &str) -> Result<u64, String> {
        let (result, line) = expand(src);
        result.map_err(|e| format!("{e:?} at line {line}"))
    }

    /// Ten copies of the macro before, `levels` deep: 10^levels tokens.
    fn chain(levels: u32) -> String {
        let mut s = String::from("#define M0 1+\n");
        for i in 1..=levels {
            s += &format!("#define M{i} {}\n", vec![format!("M{}", i - 1); 10].join(" "));
        }
        s
    }

    #[test]
    fn counts_what_the_preprocessor_hands_on() {
        assert_eq!(tokens("a b(c) ;"), Ok(6));
        assert_eq!(tokens("#define TWO 2\nint x = TWO;"), Ok(5));
        // The body's 17 tokens, each of its four parameters replaced: the inner call's by one
        // token each, the outer's `a` by one and `b` by the inner call's 17.
        assert_eq!(tokens("#define MAX(a, b) ((a) > (b) ? (a) : (b))\nMAX(1, MAX(2, 3))"), Ok(13 + 2 + 2 * 17));
        // A function-like macro without `(` after it is no invocation.
        assert_eq!(tokens("#define F(x) x x\nF + F(1)"), Ok(4));
        // A macro is not expanded inside itself.
        assert_eq!(tokens("#define A B\n#define B A\nA"), Ok(1));
        // Line continuations join lines, with any line end; comments are white space.
        assert_eq!(tokens("#define L 1 \\\n 2\nL /* L\n L */ L // L"), Ok(4));
        assert_eq!(tokens("#define L 1 \\\r\n 2\r\nL L"), Ok(4));
        assert_eq!(tokens("#define L 1 \\\r 2\rL L"), Ok(4));
        assert_eq!(tokens(&(chain(3) + "M3")), Ok(2000));
    }

    #[test]
    fn conditional_groups_choose_the_defines_in_force() {
        // (A macro last in the expression: pp-rs's parser ends the expression where an expansion
        // ends, see `errors_are_passed_as_pp_rs_passes_them`.)
        let pick = "#define BIG 1\n#if defined(BIG) && 2 * BIG\n#define N a\n#elif 1\n#define N a a a\n#else\n#define N a a\n#endif\nN";
        assert_eq!(tokens(pick), Ok(1));
        let pick = "#define BIG 1\n#if !defined(BIG) || 2 * BIG == 3\n#define N a\n#elif 1\n#define N a a a\n#else\n#define N a a\n#endif\nN";
        assert_eq!(tokens(pick), Ok(3));
        let pick = "#ifndef BIG\n#define N a\n#else\n#define N a a\n#endif\nN";
        assert_eq!(tokens(pick), Ok(1));
        let nested = "#if 0\n#if 1\n#define N a a\n#endif\n#else\n#define N a a a\n#endif\nN";
        assert_eq!(tokens(nested), Ok(3));
        // A bomb in a branch not taken is never expanded.
        assert_eq!(tokens(&(chain(12) + "#if 0\nM12\n#endif\nx")), Ok(1));
    }

    #[test]
    fn exponential_macros_stop_at_the_bound() {
        assert!(tokens(&(chain(12) + "\n\nM12")).unwrap_err().starts_with("Tokens at line 16"));
        // Inside an `#if`, as a function-like macro's argument (pp-rs's `#if` parser ends the
        // expression where an expansion ends, so an object-like bomb alone stops at once).
        assert!(tokens(&(chain(12) + "#define F(x) 1\n#if F(M12)\n#endif\n")).unwrap_err().starts_with("Tokens at line 15"));
        assert_eq!(tokens(&(chain(12) + "#if M12 1\n#endif\nx")), Ok(1));
        // Passed to a function-like macro, whose arguments are expanded before anything else.
        assert!(tokens(&(chain(12) + "#define F(x) x\nF(M12)")).unwrap_err().starts_with("Tokens"));
        // Function-like macros doubling their argument, nested at the call.
        let nested = format!("#define D(x) x x\n{}a{}", "D(".repeat(30), ")".repeat(30));
        assert!(tokens(&nested).unwrap_err().starts_with("Tokens"));
        // Or nested through definitions.
        let mut s = String::from("#define D0(x) x x\n");
        for i in 1..30 {
            s += &format!("#define D{i}(x) D{}(D{}(x))\n", i - 1, i - 1);
        }
        assert!(tokens(&(s + "D29(a)")).unwrap_err().starts_with("Tokens"));
    }

    #[test]
    fn deep_argument_nesting_stops() {
        let nested = format!("#define I(x) x\n{}a{}", "I(".repeat(200), ")".repeat(200));
        assert!(tokens(&nested).unwrap_err().starts_with("Depth"));
        let shallow = format!("#define I(x) x\n{}a{}", "I(".repeat(40), ")".repeat(40));
        assert_eq!(tokens(&shallow), Ok(1));
    }

    #[test]
    fn deeply_nested_expressions_stop() {
        assert!(tokens(&format!("x\n#if {}1\n#endif\n", "!".repeat(300))).unwrap_err().starts_with("Expression at line 2"));
        let shallow = format!("#if {}1{}\n#define N a a\n#endif\nN", "(".repeat(100), ")".repeat(100));
        assert_eq!(tokens(&shallow), Ok(2));
    }

    /// Where pp-rs reports an error and goes on, the expansion goes on the same way.
    #[test]
    fn errors_are_passed_as_pp_rs_passes_them() {
        // Its `#if` parser ends the expression where an expansion ends: `S * 1` is an error, no
        // group is opened, and both branches are read.
        assert_eq!(tokens("#define S 1\n#if S * 1\nx\n#else\ny y\n#endif\n"), Ok(3));
        assert_eq!(tokens("#define S 1\n#if 1 * S\nx\n#else\ny y\n#endif\n"), Ok(1));
        // Overflow is an error too.
        assert_eq!(tokens("#if 9223372036854775807 + 1\nx\n#else\ny y\n#endif\n"), Ok(3));
        // A malformed directive's tokens past where pp-rs stops reading it are read as source:
        // a bomb there is still found, one it read is not expanded.
        let bomb = chain(12);
        assert!(tokens(&(bomb.clone() + "#define 5 M12\n")).unwrap_err().starts_with("Tokens"));
        assert!(tokens(&(bomb.clone() + "#ifdef A B M12\n#endif\n")).unwrap_err().starts_with("Tokens"));
        assert_eq!(tokens(&(bomb.clone() + "#ifdef A M12\n#endif\n")), Ok(0));
        assert!(tokens(&(bomb.clone() + "#frobnicate M12\n")).unwrap_err().starts_with("Tokens"));
        // A call with the wrong number of arguments is dropped, and expansion goes on.
        assert!(tokens(&(bomb.clone() + "#define F(a, b) a\nF(1) M12\n")).unwrap_err().starts_with("Tokens"));
        // A redefinition keeps the first definition.
        assert!(tokens(&(bomb + "#define N M12\n#define N x\nN\n")).unwrap_err().starts_with("Tokens"));
        // A stray `#elif` skips the rest (pp-rs does).
        assert_eq!(tokens("x\n#elif 1\ny\n"), Ok(1));
    }

    #[test]
    fn a_large_source_without_macros_is_not_counted() {
        let big = "x = y + 1;\n".repeat(300_000);
        assert_eq!(tokens(&big), Ok(6 * 300_000));
    }

    #[test]
    fn errors_are_left_to_the_front_end() {
        assert!(check_macro_expansion("#if 1 +\n#endif\n", "s").is_ok());
        assert!(check_macro_expansion("#define F(x) x\nF(1", "s").is_ok());
        assert!(check_macro_expansion("#if 1\nint x;", "s").is_ok());
        let e = check_macro_expansion(&(chain(12) + "M12"), "bomb.comp").unwrap_err().to_string();
        assert!(e.contains("bomb.comp:14: preprocessing makes more than 1048576 tokens"), "{e}");
    }
}

/// The expansion against pp-rs itself, the preprocessor naga runs, over random programs of
/// macros, calls, directives (well formed or not), conditional groups and characters its lexer
/// refuses: both hand on the same number of tokens, errors or none.
#[cfg(test)]
mod against_pp_rs {
    use proptest::prelude::*;
    use proptest::test_runner::RngSeed;

    use super::*;

    /// What pp-rs hands on: its tokens, and whether it reported an error on the way (naga goes
    /// on past errors, and so does this).
    fn pp_rs(src: &str) -> (u64, bool) {
        let (mut n, mut error) = (0, false);
        for item in pp_rs::pp::Preprocessor::new(src) {
            match item {
                Ok(_) => n += 1,
                Err(_) => error = true,
            }
        }
        (n, error)
    }

    /// What this module hands on, or `None` past the limit.
    fn ours(src: &str) -> Option<u64> {
        expand(src).0.ok()
    }

    const NAMES: [&str; 6] = ["A", "B", "C", "F", "G", "H"];

    /// A token of a body or a source line: plain tokens, punctuation that calls are made of,
    /// macro names and the parameters `x` and `y`.
    fn token() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => prop::sample::select(vec!["a", "1", "2", "+", "*", "x", "y", "defined", "#"]).prop_map(String::from),
            1 => prop::sample::select(vec!["@", "1.5", "0x1F", "09", "1e", "2u", "3L", "\\", "/*c*/", ".", "é"]).prop_map(String::from),
            3 => prop::sample::select(NAMES.to_vec()).prop_map(String::from),
            2 => prop::sample::select(vec!["(", ")", ","]).prop_map(String::from),
        ]
    }

    fn tokens(max: usize) -> impl Strategy<Value = String> {
        prop::collection::vec(token(), 0..max).prop_map(|t| t.join(" "))
    }

    /// An `#if` condition: literals, `defined`, macros and arithmetic.
    fn condition() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec!["0", "1", "2 * 3 == 6", "1 + 1"]).prop_map(String::from),
            prop::sample::select(NAMES.to_vec()).prop_map(|n| format!("defined({n})")),
            prop::sample::select(NAMES.to_vec()).prop_map(|n| format!("!defined {n}")),
            prop::sample::select(NAMES.to_vec()).prop_map(String::from),
            prop::sample::select(NAMES.to_vec()).prop_map(|n| format!("1 + {n}")),
            prop::sample::select(NAMES.to_vec()).prop_map(|n| format!("{n} * 2")),
        ]
    }

    /// A line of the program.
    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => (prop::sample::select(NAMES.to_vec()), tokens(6)).prop_map(|(n, b)| format!("#define {n} {b}")),
            3 => (prop::sample::select(NAMES.to_vec()), prop::sample::select(vec!["x", "x, y", ""]), tokens(6))
                .prop_map(|(n, p, b)| format!("#define {n}({p}) {b}")),
            1 => prop::sample::select(NAMES.to_vec()).prop_map(|n| format!("#undef {n}")),
            1 => condition().prop_map(|c| format!("#if {c}")),
            1 => prop::sample::select(NAMES.to_vec()).prop_map(|n| format!("#ifdef {n}")),
            1 => condition().prop_map(|c| format!("#elif {c}")),
            1 => Just("#else".to_string()),
            1 => Just("#endif".to_string()),
            1 => tokens(4).prop_map(|t| format!("#{t}")),
            1 => (prop::sample::select(vec!["undef", "ifdef", "ifndef", "else", "endif", "line", "version", "pragma", "extension", "error", "elif", "if", "define"]), tokens(3))
                .prop_map(|(d, t)| format!("#{d} {t}")),
            6 => tokens(10),
        ]
    }

    /// Programs on which this module and pp-rs once parted, each now handed on alike.
    #[test]
    fn the_cases_found_so_far() {
        for src in [
            // An error where a call's `(` would be: no call.
            "#define G(x) \nG\n#else\n(\n",
            "#define G(x) \na G (\n#\na\n",
            // A `#` in a body ends the definition with an error; the rest of the line is source.
            "#define A # a\n",
            "#define A(x) # A\n#if A * 2\n#elif 1\n. A a A a\n",
            // An unknown directive's tokens are source; an invalid octal literal is an error.
            "#define C(x) \n# A C ( 09 a\n",
            // The `#if` parser: each level's look past its operands, where an expansion ends.
            "#define H x B\n#define B \n#if H * 2\n#a a\n",
            "#define C A\n#if C * 2\na\n",
            // A redefinition that differs keeps the first.
            "#define G a a\n#define G(x) \nG\n",
        ] {
            let (theirs, _) = pp_rs(src);
            assert_eq!(ours(src), Some(theirs), "{src}");
        }
    }

    /// Random programs on a workstation; under CI, fewer and from a fixed seed, so that a run
    /// of CI checks what was checked before it.
    fn config() -> ProptestConfig {
        let ci = std::env::var_os("CI").is_some();
        ProptestConfig { cases: if ci { 4000 } else { 20000 }, rng_seed: if ci { RngSeed::Fixed(0x9C55_2026) } else { RngSeed::Random }, ..ProptestConfig::default() }
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn hands_on_what_pp_rs_does(lines in prop::collection::vec(line(), 0..14)) {
            let src = lines.join("\n") + "\n";
            // A program past the limit is not compared (pp-rs would take long to make it).
            if let Some(n) = ours(&src) {
                let (theirs, error) = pp_rs(&src);
                prop_assert_eq!(n, theirs, "pp-rs {} errors:\n{}", if error { "with" } else { "without" }, src);
            }
        }

        /// Any text at all gets an answer, never a panic.
        #[test]
        fn any_text_is_answered(src in "(?s).{0,200}", lines in prop::collection::vec(line(), 0..8)) {
            let _ = check_macro_expansion(&src, "any");
            let _ = check_macro_expansion(&(lines.join("\r\n") + &src), "any");
        }
    }
}
