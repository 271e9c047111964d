//! The mistakes agents make, applied to a real edit: what the file holds
//! when the call arrives, what the agent sends, and what the right answer
//! is (the file after the intended edit, or the region the block was meant
//! for and its exact current text).
//!
//! Formatting mistakes are made on the file's side where that is where
//! they come from (the file has trailing whitespace, CRLF line endings or
//! curly quotes the agent's copy lost), so the intended result is the real
//! edit made to that file; the other mistakes are in what the agent sends.

use super::edits::{lines, AgentEdit};

/// A kind of mistake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    TrailingWhitespace,
    Indentation,
    LineEndings,
    MixedEndings,
    Quotes,
    Stale,
    LineNumbers,
    Elision,
    AlreadyApplied,
    TooLittleContext,
}

impl Kind {
    pub const ALL: [Kind; 10] = [
        Kind::TrailingWhitespace,
        Kind::Indentation,
        Kind::LineEndings,
        Kind::MixedEndings,
        Kind::Quotes,
        Kind::Stale,
        Kind::LineNumbers,
        Kind::Elision,
        Kind::AlreadyApplied,
        Kind::TooLittleContext,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::TrailingWhitespace => "trailing whitespace lost",
            Kind::Indentation => "wrong indentation",
            Kind::LineEndings => "LF block, CRLF file",
            Kind::MixedEndings => "LF block, mixed-endings file",
            Kind::Quotes => "straight quotes, curly file",
            Kind::Stale => "stale view",
            Kind::LineNumbers => "line-number prefixes",
            Kind::Elision => "elided middle",
            Kind::AlreadyApplied => "sent again after it landed",
            Kind::TooLittleContext => "too little context",
        }
    }

    /// Whether a tolerant call may write (the mistake is one `match`
    /// tolerates).
    pub fn tolerable(self) -> bool {
        matches!(
            self,
            Kind::TrailingWhitespace
                | Kind::Indentation
                | Kind::LineEndings
                | Kind::MixedEndings
                | Kind::Quotes
        )
    }
}

/// One call to make and its right answer.
#[derive(Debug, Clone)]
pub struct Case {
    pub kind: Kind,
    pub file: String,
    pub search: String,
    pub replace: String,
    /// The file after the intended edit (tolerable kinds).
    pub intended: Option<String>,
    /// 1-based first and last line of the region the block was meant for
    /// (already applied: where the edit stands; too little context: the
    /// intended occurrence), and its exact current text.
    pub region: (usize, usize),
    pub region_text: String,
    /// 1-based lines of `intended` the edit wrote (the replacement), and
    /// among them those it kept from the file (its context lines).
    pub written: (usize, usize),
    pub context: Vec<usize>,
    pub origin: String,
}

pub fn xorshift(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

fn line_of(text: &str, at: usize) -> usize {
    1 + text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// 1-based lines of `text[at..at + len]`.
fn span(text: &str, at: usize, len: usize) -> (usize, usize) {
    let first = line_of(text, at);
    let inner = text[at..at + len]
        .trim_end_matches('\n')
        .matches('\n')
        .count();
    (first, first + inner)
}

fn ext(origin: &str) -> &str {
    origin.rsplit('.').next().unwrap_or("")
}

/// The edit made to a file whose block region (the edit's search text) was
/// changed line by line by `f`, which also changes the replacement's
/// context lines the same way: the file, its search text, the intended
/// result.
fn on_file(e: &AgentEdit, f: &dyn Fn(usize, &str) -> String) -> (String, String, String) {
    let s: Vec<String> = lines(&e.search)
        .iter()
        .enumerate()
        .map(|(i, l)| f(i, l))
        .collect();
    let r_lines = lines(&e.replace);
    let n = r_lines.len();
    let s_n = s.len();
    let r: Vec<String> = r_lines
        .iter()
        .enumerate()
        .map(|(j, l)| {
            if j < e.above {
                s[j].clone()
            } else if j + e.below >= n && e.below > 0 {
                s[s_n - (n - j)].clone()
            } else {
                l.to_string()
            }
        })
        .collect();
    let (s, r) = (s.concat(), r.concat());
    let file = format!(
        "{}{}{}",
        &e.before[..e.at],
        s,
        &e.before[e.at + e.search.len()..]
    );
    let intended = format!(
        "{}{}{}",
        &e.before[..e.at],
        r,
        &e.before[e.at + e.search.len()..]
    );
    (file, s, intended)
}

fn with_body(l: &str, f: impl Fn(&str) -> String) -> String {
    let body = l.trim_end_matches(['\n', '\r']);
    format!("{}{}", f(body), &l[body.len()..])
}

fn curl(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut open = true;
    for c in s.chars() {
        match c {
            '"' => {
                out.push(if open { '“' } else { '”' });
                open = !open;
            }
            '\'' => out.push('’'),
            c => out.push(c),
        }
    }
    out.replace(" -- ", " — ")
}

fn lead(l: &str) -> &str {
    &l[..l.len() - l.trim_start_matches([' ', '\t']).len()]
}

/// The search and replacement re-indented by the agent: the block's
/// common indentation dropped, or tabs and spaces swapped.
fn reindent(e: &AgentEdit, rng: &mut u64) -> Option<(String, String)> {
    let s = lines(&e.search);
    let common = s
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| lead(l))
        .min_by_key(|l| l.len())?
        .to_string();
    let tabs = s.iter().any(|l| lead(l).contains('\t'));
    // (Dropping the block's indentation is only something an agent does
    // consistently when every new line has it too.)
    let dedent = !common.is_empty()
        && xorshift(rng).is_multiple_of(2)
        && lines(&e.replace)
            .iter()
            .all(|l| l.trim().is_empty() || l.starts_with(common.as_str()));
    let map = |t: &str| -> String {
        lines(t)
            .iter()
            .map(|l| {
                if dedent {
                    l.strip_prefix(common.as_str()).unwrap_or(l).to_string()
                } else if tabs {
                    format!("{}{}", lead(l).replace('\t', "    "), &l[lead(l).len()..])
                } else {
                    format!("{}{}", lead(l).replace("    ", "\t"), &l[lead(l).len()..])
                }
            })
            .collect()
    };
    // The copy must keep every difference between the block's and the
    // replacement's lines: a re-indentation that makes a changed line equal
    // to the line it changes, or gives two lines indented one with tabs, the
    // other with spaces, indentation of one style (a commit that converts
    // them, at any depth: the copy no longer says it does), or dedents a
    // whitespace-only line to empty, or converts a line indented in both
    // styles, erases the edit's own change, and
    // leaves no intent a tolerant match could recover.
    let (sl, rl) = (lines(&e.search), lines(&e.replace));
    let tabbed = |l: &str| lead(&map(l)).contains('\t');
    let erased = sl.iter().any(|a| {
        rl.iter().any(|b| {
            (a != b && map(a) == map(b))
                || (!a.trim().is_empty()
                    && !b.trim().is_empty()
                    && !lead(a).is_empty()
                    && !lead(b).is_empty()
                    && tabbed(a) == tabbed(b)
                    && lead(a).contains('\t') != lead(b).contains('\t'))
        })
    });
    // A replacement line indented with tabs and spaces both (`\t` and 8
    // spaces, 20 spaces and 3 tabs) comes out of a conversion of style in
    // one style alone: the copy no longer says how the commit mixed them.
    let mixed = !dedent
        && rl.iter().any(|b| {
            let l = lead(b);
            l.contains('\t') && l.contains(' ')
        });
    // Nor one that dedents a line of whitespace alone to nothing, a line of
    // the replacement or one of the block the commit changes: the copy no
    // longer says that line was indented (an empty line stays empty).
    let blanked = |l: &str| {
        let body = l.trim_end_matches(['\r', '\n']);
        !body.is_empty() && body == common.as_str()
    };
    let emptied = dedent
        && (rl.iter().any(|b| blanked(b)) || sl.iter().any(|a| blanked(a) && !rl.contains(a)));
    let erased = erased || mixed || emptied;
    let (s2, r2) = (map(&e.search), map(&e.replace));
    // Nor may the copy's replacement be text the file already holds (a
    // re-indentation dedented gives the block's own lines): that is the
    // edit applied, as far as anyone can tell from the file.
    let stands = memchr::memmem::find(e.before.as_bytes(), r2.as_bytes()).is_some();
    (s2 != e.search && !erased && !stands).then_some((s2, r2))
}

/// A change someone made to one line since the agent read it.
fn stale_line(l: &str) -> String {
    with_body(l, |b| {
        if let Some(i) = b.rfind(|c: char| c.is_ascii_digit()) {
            let d = b.as_bytes()[i] - b'0';
            format!("{}{}{}", &b[..i], (d + 1) % 10, &b[i + 1..])
        } else {
            format!("{b}_v2")
        }
    })
}

/// What a mistake makes of an edit: the file the call meets, what the
/// agent sends, and the right answer.
struct Draft {
    file: String,
    search: String,
    replace: String,
    intended: Option<String>,
    region: (usize, usize),
    region_text: String,
}

impl Draft {
    /// A mistake made to the file's side of the block: the file and the
    /// block's text there from [`on_file`], the agent's edit as it was.
    fn on_file(e: &AgentEdit, (file, s, intended): (String, String, String)) -> Draft {
        Draft {
            region: span(&file, e.at, s.len()),
            file,
            search: e.search.clone(),
            replace: e.replace.clone(),
            intended: Some(intended),
            region_text: s,
        }
    }

    /// A mistake in what the agent sends, the file as it was before the
    /// edit: the block meant for is the edit's own.
    fn sent(e: &AgentEdit, search: String, replace: String, intended: Option<String>) -> Draft {
        Draft {
            file: e.before.clone(),
            search,
            replace,
            intended,
            region: span(&e.before, e.at, e.search.len()),
            region_text: e.search.clone(),
        }
    }
}

fn trailing_whitespace(e: &AgentEdit, rng: &mut u64) -> Option<Draft> {
    let s_lines = lines(&e.search);
    let pick = (xorshift(rng) as usize) % s_lines.len();
    let pad = if xorshift(rng).is_multiple_of(2) {
        "  "
    } else {
        "\t"
    };
    if s_lines[pick].trim().is_empty() || !s_lines[pick].ends_with('\n') {
        return None;
    }
    let padded = |i: usize, l: &str| {
        if i == pick {
            with_body(l, |b| format!("{b}{pad}"))
        } else {
            l.to_string()
        }
    };
    Some(Draft::on_file(e, on_file(e, &padded)))
}

/// Whether the file has CRs before or after the edit (a commit that
/// converts line endings: a mistake in line endings would erase its own
/// change).
fn has_cr(e: &AgentEdit) -> bool {
    e.before.contains('\r') || e.after.contains('\r')
}

fn line_endings(e: &AgentEdit) -> Option<Draft> {
    if has_cr(e) || !e.search.contains('\n') {
        return None;
    }
    let crlf = |t: &str| t.replace('\n', "\r\n");
    let (file, s) = (crlf(&e.before), crlf(&e.search));
    let at = crlf(&e.before[..e.at]).len();
    Some(Draft {
        region: span(&file, at, s.len()),
        file,
        search: e.search.clone(),
        replace: e.replace.clone(),
        intended: Some(crlf(&e.after)),
        region_text: s,
    })
}

fn mixed_endings(e: &AgentEdit) -> Option<Draft> {
    if has_cr(e) || lines(&e.search).len() < 2 {
        return None;
    }
    // Every other line of the file (counted from the block) ends with
    // CRLF; the block's lines alternate.
    let odd = |i: usize, l: &str| -> String {
        if i % 2 == 1 && l.ends_with('\n') {
            format!("{}\r\n", &l[..l.len() - 1])
        } else {
            l.to_string()
        }
    };
    Some(Draft::on_file(e, on_file(e, &odd)))
}

fn quotes(e: &AgentEdit) -> Option<Draft> {
    if !e.search.contains(['"', '\'']) || e.search.contains(['“', '”', '’']) {
        return None;
    }
    Some(Draft::on_file(e, on_file(e, &|_, l| curl(l))))
}

/// The block as the file holds it after someone changed it since the agent
/// read it: a line added inside it, one removed, or one changed.
fn stale(e: &AgentEdit, rng: &mut u64) -> Option<Draft> {
    let s_lines = lines(&e.search);
    let n = s_lines.len();
    let pick = (xorshift(rng) as usize) % n;
    let s: String = match xorshift(rng) % 3 {
        1 if n >= 2 && pick + 1 < n => s_lines
            .iter()
            .enumerate()
            .flat_map(|(i, l)| {
                let extra = (i == pick).then(|| format!("{}added_since_read();\n", lead(l)));
                std::iter::once(l.to_string()).chain(extra)
            })
            .collect(),
        2 if n >= 3 && pick > 0 && pick + 1 < n => s_lines
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != pick)
            .map(|(_, l)| *l)
            .collect(),
        _ if !s_lines[pick].trim().is_empty() => s_lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                if i == pick {
                    stale_line(l)
                } else {
                    l.to_string()
                }
            })
            .collect(),
        _ => return None,
    };
    // (A change since that is the edit itself is no stale view: the edit
    // has landed.)
    if s == e.replace {
        return None;
    }
    let file = format!(
        "{}{}{}",
        &e.before[..e.at],
        s,
        &e.before[e.at + e.search.len()..]
    );
    Some(Draft {
        region: span(&file, e.at, s.len()),
        file,
        search: e.search.clone(),
        replace: e.replace.clone(),
        intended: None,
        region_text: s,
    })
}

/// The block with the line numbers a file viewer shows before each line.
fn line_numbers(e: &AgentEdit, rng: &mut u64) -> Option<Draft> {
    let first = line_of(&e.before, e.at);
    let style = xorshift(rng) % 3;
    let search: String = lines(&e.search)
        .iter()
        .enumerate()
        .map(|(i, l)| match style {
            0 => format!("{:>6}→{l}", first + i),
            1 => format!("{:>6}\t{l}", first + i),
            _ => format!("{}: {l}", first + i),
        })
        .collect();
    Some(Draft::sent(e, search, e.replace.clone(), None))
}

/// The block's middle left out, a marker in its place.
fn elision(e: &AgentEdit, rng: &mut u64) -> Option<Draft> {
    let s_lines = lines(&e.search);
    let n = s_lines.len();
    if n < 5 {
        return None;
    }
    let marker = match (xorshift(rng) % 3, ext(&e.origin)) {
        (0, _) => "...".to_string(),
        (1, "rs" | "js" | "mjs" | "ts" | "c" | "go" | "java") => {
            format!("{}// ... existing code ...", lead(s_lines[2]))
        }
        (1, "py" | "sh" | "toml" | "yml" | "yaml") => format!("{}# ...", lead(s_lines[2])),
        _ => format!("{}…", lead(s_lines[2])),
    };
    let search = format!(
        "{}{}{marker}\n{}{}",
        s_lines[0],
        s_lines[1],
        s_lines[n - 2],
        s_lines[n - 1]
    );
    Some(Draft::sent(e, search, e.replace.clone(), None))
}

/// The edit sent again to the file it already changed.
fn already_applied(e: &AgentEdit) -> Option<Draft> {
    let visible = e
        .replace
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .count();
    if visible < 6 || e.replace == e.search {
        return None;
    }
    Some(Draft {
        file: e.after.clone(),
        search: e.search.clone(),
        replace: e.replace.clone(),
        intended: None,
        region: span(&e.after, e.at, e.replace.len()),
        region_text: e.replace.clone(),
    })
}

/// Only the lines the edit removes, which occur elsewhere too.
fn too_little_context(e: &AgentEdit) -> Option<Draft> {
    let old: String = e.removed.concat();
    if old.trim().is_empty()
        || memchr::memmem::find_iter(e.before.as_bytes(), old.as_bytes()).count() < 2
    {
        return None;
    }
    let at = e.at + lines(&e.search)[..e.above].concat().len();
    Some(Draft {
        file: e.before.clone(),
        search: old.clone(),
        replace: e.added.concat(),
        intended: None,
        region: span(&e.before, at, old.len()),
        region_text: old,
    })
}

/// The case of mistake `kind` made to edit `e`, when it applies to it.
pub fn make(kind: Kind, e: &AgentEdit, rng: &mut u64) -> Option<Case> {
    let d = match kind {
        Kind::TrailingWhitespace => trailing_whitespace(e, rng),
        Kind::Indentation => {
            let (s, r) = reindent(e, rng)?;
            Some(Draft::sent(e, s, r, Some(e.after.clone())))
        }
        Kind::LineEndings => line_endings(e),
        Kind::MixedEndings => mixed_endings(e),
        Kind::Quotes => quotes(e),
        Kind::Stale => stale(e, rng),
        Kind::LineNumbers => line_numbers(e, rng),
        Kind::Elision => elision(e, rng),
        Kind::AlreadyApplied => already_applied(e),
        Kind::TooLittleContext => too_little_context(e),
    }?;
    // A mistake that leaves the block found byte for byte is no mistake (an
    // edit that only adds lines after its context, sent again, is found and
    // applied again: not a near miss).
    if kind != Kind::TooLittleContext
        && memchr::memmem::find(d.file.as_bytes(), d.search.as_bytes()).is_some()
    {
        return None;
    }
    // The replacement's lines in the intended file: they start where the
    // block did.
    let first = line_of(&e.before, e.at);
    let n = lines(&e.replace).len();
    let context: Vec<usize> = (0..e.above)
        .chain(n.saturating_sub(e.below)..n)
        .map(|k| first + k)
        .collect();
    Some(Case {
        kind,
        file: d.file,
        search: d.search,
        replace: d.replace,
        intended: d.intended,
        region: d.region,
        region_text: d.region_text,
        written: (first, first + n.max(1) - 1),
        context,
        origin: e.origin.clone(),
    })
}
