//! Property: an edit that needed a tolerance writes exactly what was asked,
//! or nothing. For every tolerance (and their combinations) and every entry
//! point that tolerates something, each line the edit writes is either an
//! untouched line of the file or one of the caller's lines, re-indented as a
//! whole, never a splice of a file line and a caller line.
//!
//! A case is a file of indented lines (each with a unique token, some with
//! typographic punctuation or trailing whitespace, LF or CRLF), a window of
//! its lines, and the search block an agent would send for that window: its
//! lines differ from the file's in the ways the chosen tolerances forgive
//! (line endings, trailing whitespace, indentation in another style or
//! depth, the block starting after the first line's indentation, ASCII for
//! typographic punctuation). The replacement keeps, deletes, nests or
//! changes each block line (a word put before it, as in the reported
//! `await` case, after it, inside it, or the whole text) and adds new lines.
//!
//! - `patch_file` with `match`: on success every written line of the window
//!   equals the caller's line under the tolerances of the call (without
//!   `indentation` the caller's indentation exactly; without
//!   `trailing_whitespace` / `unicode_punctuation` the caller's bytes
//!   exactly), lines the caller indented like a block line get that file
//!   line's indentation, every line keeps the file's line ending, and the
//!   lines outside the window are untouched. A refusal must say that the
//!   replacement cannot be fitted with certainty, and writes nothing.
//! - `apply_patch` (a Codex hunk with the same lines, located at whatever
//!   fuzz level it needs): the result is exactly the file's lines for
//!   context and the caller's `+` lines, verbatim, with the file's ending.
//! - `apply_edit_blocks` (its one tolerance is line endings): the result is
//!   exactly the file with the window replaced by the caller's lines.
//!
//! `PROPTEST_CASES=N` runs more cases than the default; `SHOW_REFUSED=1`
//! (with `--nocapture`) prints the cases refused as uncertain.

use std::path::Path;

use patch_file_core::api;
use patch_file_core::testing::text::punct_ascii;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Value};

const NAMES: [&str; 4] = [
    "line_endings",
    "trailing_whitespace",
    "indentation",
    "unicode_punctuation",
];
const LE: usize = 0;
const TW: usize = 1;
const IND: usize = 2;
const UP: usize = 3;

/// Words around each line's token: typographic punctuation, its ASCII
/// spelling, code.
const WORDS: &[&str] = &[
    "“q”", "\"q\"", "a—b", "a-b", "wait…", "it’s", "«g»", "foo()", "= 1;", "x",
];
const UNITS: &[&str] = &["\t", "  ", "    "];
const TRAILS: &[&str] = &["", " ", "\t  "];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Keep,
    /// A word put before the text (the reported `await foo()` case).
    Prefix,
    Suffix,
    /// The token changed inside the text.
    Middle,
    /// Entirely new text.
    Rewrite,
    Delete,
}

#[derive(Debug, Clone)]
struct Case {
    /// Per file line: depth, text (without indentation), trailing whitespace.
    lines: Vec<(usize, String, &'static str)>,
    crlf: bool,
    unit_f: &'static str,
    base_f: usize,
    /// The window: file lines `a..b`.
    a: usize,
    b: usize,
    tol: [bool; 4],
    // How the block differs, each only when its tolerance is on.
    flip_endings: bool,
    flip_trail: Vec<bool>,
    unit_s: &'static str,
    base_s: usize,
    fold: bool,
    // Whatever the tolerances: the block starts after the first line's
    // indentation; the block ends with a line break.
    strip_first: bool,
    search_nl: bool,
    /// Per window line: what the replacement does with it, and whether the
    /// changed line is nested one level deeper.
    ops: Vec<(Op, bool)>,
    /// New lines: (before window line `k`, or at the end when `k` is the
    /// window's length; one level deeper than that line).
    inserts: Vec<(usize, bool)>,
}

/// One line of a block as the caller writes it.
#[derive(Debug, Clone)]
struct Line {
    lead: String,
    text: String,
    trail: String,
    /// The window depth its indentation stands for (`None`: not the block's
    /// style, e.g. a first line sent without its indentation).
    depth: Option<usize>,
}

impl Line {
    fn full(&self) -> String {
        format!("{}{}{}", self.lead, self.text, self.trail)
    }
}

/// What the replacement line `j` came from, for the Codex reference.
#[derive(Debug, Clone, Copy)]
enum From {
    Context(usize),
    Added,
}

impl Case {
    fn eol(&self) -> &'static str {
        if self.crlf {
            "\r\n"
        } else {
            "\n"
        }
    }

    fn file_lead(&self, depth: usize) -> String {
        self.unit_f.repeat(self.base_f + depth)
    }

    fn file_line(&self, i: usize) -> String {
        let (d, t, tr) = &self.lines[i];
        format!("{}{t}{tr}", self.file_lead(*d))
    }

    fn file(&self) -> String {
        (0..self.lines.len())
            .map(|i| self.file_line(i) + self.eol())
            .collect()
    }

    /// The block's indentation for a depth: the file's style unless the
    /// indentation tolerance is on.
    fn block_lead(&self, depth: usize, perturb: bool) -> String {
        if perturb && self.tol[IND] {
            self.unit_s.repeat(self.base_s + depth)
        } else {
            self.file_lead(depth)
        }
    }

    /// The search block's lines; `perturb: false` gives the file's own.
    fn search(&self, perturb: bool) -> Vec<Line> {
        (self.a..self.b)
            .enumerate()
            .map(|(k, i)| {
                let (d, t, tr) = &self.lines[i];
                let mut lead = self.block_lead(*d, perturb);
                // Only where the file indents that line, so the block
                // starts inside it (elsewhere it would nest differently).
                let strip = perturb && k == 0 && self.strip_first;
                let depth = if strip && !lead.is_empty() && !self.file_lead(*d).is_empty() {
                    lead.clear();
                    None
                } else {
                    Some(*d)
                };
                let text = if perturb && self.tol[UP] && self.fold {
                    t.chars()
                        .map(|c| punct_ascii(c).map_or(c.to_string(), str::to_string))
                        .collect()
                } else {
                    t.clone()
                };
                let trail = if perturb && self.tol[TW] && self.flip_trail[k] {
                    if tr.is_empty() {
                        " "
                    } else {
                        ""
                    }
                } else {
                    tr
                };
                Line {
                    lead,
                    text,
                    trail: trail.to_string(),
                    depth,
                }
            })
            .collect()
    }

    /// The replacement's lines for `search`, and where each came from.
    fn replace(&self, search: &[Line], perturb: bool) -> Vec<(Line, From)> {
        let mut out = Vec::new();
        let mut added = 0;
        let insert = |k: usize, deeper: bool, out: &mut Vec<(Line, From)>, added: &mut usize| {
            let i = self.a + k.min(search.len() - 1);
            let d = self.lines[i].0 + usize::from(deeper);
            out.push((
                Line {
                    lead: self.block_lead(d, perturb),
                    text: format!("n{added}()"),
                    trail: String::new(),
                    depth: Some(d),
                },
                From::Added,
            ));
            *added += 1;
        };
        for (k, s) in search.iter().enumerate() {
            for &(at, deeper) in &self.inserts {
                if at == k {
                    insert(k, deeper, &mut out, &mut added);
                }
            }
            let (op, nest) = self.ops[k];
            let id = format!("v{}", self.a + k);
            let text = match op {
                Op::Keep => {
                    out.push((s.clone(), From::Context(self.a + k)));
                    continue;
                }
                Op::Delete => continue,
                Op::Prefix => format!("await {}", s.text),
                Op::Suffix => format!("{} + 1", s.text),
                Op::Middle => s.text.replace(&id, &format!("{id}x")),
                Op::Rewrite => format!("z{} = 0", self.a + k),
            };
            let d = self.lines[self.a + k].0;
            let (lead, depth) = if nest {
                (self.block_lead(d + 1, perturb), Some(d + 1))
            } else {
                (s.lead.clone(), s.depth)
            };
            out.push((
                Line {
                    lead,
                    text,
                    trail: s.trail.clone(),
                    depth,
                },
                From::Added,
            ));
        }
        for &(at, deeper) in &self.inserts {
            if at >= search.len() {
                insert(search.len(), deeper, &mut out, &mut added);
            }
        }
        out
    }
}

fn case() -> impl Strategy<Value = Case> {
    let line = (
        0usize..3,
        proptest::option::of(prop::sample::select(WORDS)),
        proptest::option::of(prop::sample::select(WORDS)),
        prop::sample::select(TRAILS),
    );
    let op = (
        prop::sample::select(vec![
            Op::Keep,
            Op::Keep,
            Op::Prefix,
            Op::Prefix,
            Op::Suffix,
            Op::Middle,
            Op::Rewrite,
            Op::Delete,
        ]),
        prop::bool::weighted(0.2),
    );
    (
        prop::collection::vec(line, 2..8),
        any::<bool>(),
        prop::sample::select(UNITS),
        0usize..3,
        (0usize..8, 1usize..5),
        1u8..16,
        (any::<bool>(), prop::collection::vec(any::<bool>(), 5)),
        (prop::sample::select(UNITS), 0usize..3, any::<bool>()),
        (prop::bool::weighted(0.3), any::<bool>()),
        prop::collection::vec(op, 5),
        prop::collection::vec((0usize..6, any::<bool>()), 0..3),
    )
        .prop_map(
            |(
                raw,
                crlf,
                unit_f,
                base_f,
                (a, len),
                bits,
                (flip_endings, flip_trail),
                (unit_s, base_s, fold),
                (strip_first, search_nl),
                ops,
                inserts,
            )| {
                let lines: Vec<(usize, String, &'static str)> = raw
                    .into_iter()
                    .enumerate()
                    .map(|(i, (d, w1, w2, tr))| {
                        let mut t = String::new();
                        if let Some(w) = w1 {
                            t.push_str(w);
                            t.push(' ');
                        }
                        t.push_str(&format!("v{i}"));
                        if let Some(w) = w2 {
                            t.push(' ');
                            t.push_str(w);
                        }
                        (d, t, tr)
                    })
                    .collect();
                let a = a % lines.len();
                let b = (a + len).min(lines.len());
                let mut ops: Vec<(Op, bool)> = ops[..b - a].to_vec();
                let inserts: Vec<(usize, bool)> = inserts
                    .into_iter()
                    .map(|(k, d)| (k % (b - a + 1), d))
                    .collect();
                // Some line always remains.
                if inserts.is_empty() && ops.iter().all(|(o, _)| *o == Op::Delete) {
                    ops[0].0 = Op::Prefix;
                }
                Case {
                    lines,
                    crlf,
                    unit_f,
                    base_f,
                    a,
                    b,
                    tol: [0, 1, 2, 3].map(|t| bits & (1 << t) != 0),
                    flip_endings,
                    flip_trail,
                    unit_s,
                    base_s,
                    fold,
                    strip_first,
                    search_nl,
                    ops,
                    inserts,
                }
            },
        )
}

fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root, "durable": false })
}

fn split_lines(s: &str) -> Vec<&str> {
    s.split_inclusive('\n').collect()
}

fn content(line: &str) -> &str {
    line.trim_end_matches('\n').trim_end_matches('\r')
}

fn lead(s: &str) -> &str {
    &s[..s.len() - s.trim_start_matches([' ', '\t']).len()]
}

/// A line under the tolerances of `tol` (line endings are compared apart).
fn key(s: &str, tol: &[bool; 4]) -> String {
    let mut t = s;
    if tol[IND] {
        t = t.trim_start_matches([' ', '\t']);
    }
    if tol[TW] {
        t = t.trim_end_matches([' ', '\t']);
    }
    if tol[UP] {
        t.chars()
            .map(|c| punct_ascii(c).map_or(c.to_string(), str::to_string))
            .collect()
    } else {
        t.to_string()
    }
}

/// Outcome of one `patch_file` case.
enum Tally {
    /// Found byte for byte (the block happened to need no tolerance).
    Exact,
    /// Applied with these tolerances (`matched_with`).
    Applied(Vec<String>),
    Refused,
}

fn check_patch_file(root: &Path, c: &Case) -> Result<Tally, TestCaseError> {
    let file = c.file();
    let path = root.join("f.txt");
    std::fs::write(&path, &file).unwrap();
    let search = c.search(true);
    let replace = c.replace(&search, true);
    let s_eol = if c.tol[LE] && c.flip_endings {
        if c.crlf {
            "\n"
        } else {
            "\r\n"
        }
    } else {
        c.eol()
    };
    let join = |ls: Vec<String>| {
        let mut s = ls.join(s_eol);
        if c.search_nl {
            s.push_str(s_eol);
        }
        s
    };
    let search_text = join(search.iter().map(Line::full).collect());
    let replace_text = join(replace.iter().map(|(l, _)| l.full()).collect());
    let tolerances: Vec<&str> = (0..4).filter(|&t| c.tol[t]).map(|t| NAMES[t]).collect();
    let r = api::patch_file(
        &json!({"file_path": "f.txt", "search": search_text, "replace": replace_text, "match": tolerances}),
        Some(&opts(root)),
    );
    let after = std::fs::read_to_string(&path).unwrap();
    let ctx = || {
        format!("\nfile {file:?}\nsearch {search_text:?}\nreplace {replace_text:?}\nmatch {tolerances:?}\n-> {after:?}\n{r}")
    };
    if r["ok"] != true {
        prop_assert_eq!(&after, &file, "a refusal wrote{}", ctx());
        let msg = r["message"].as_str().unwrap_or_default();
        // (Or a place at the block's own indentation, nearly the same, makes
        // the match one of two: refused as ambiguous.)
        let rival =
            r["code"] == "SEARCH_BLOCK_AMBIGUOUS" && msg.contains("may have been meant for either");
        prop_assert!(
            msg.contains("cannot be fitted to the file with certainty") || rival,
            "refused for another reason than an uncertain mapping{}",
            ctx()
        );
        if std::env::var_os("SHOW_REFUSED").is_some() {
            println!("refused: {}", ctx());
        }
        return Ok(Tally::Refused);
    }
    if r["matched_with"] == json!([]) {
        // Found byte for byte: no tolerance was used, and the caller's
        // replacement is written as sent, in place of the one occurrence.
        prop_assert_eq!(file.matches(&search_text).count(), 1, "{}", ctx());
        prop_assert_eq!(
            &after,
            &file.replacen(&search_text, &replace_text, 1),
            "{}",
            ctx()
        );
        return Ok(Tally::Exact);
    }
    if r["matched_with"] == json!(["line_endings"]) && file.matches(&search_text).count() == 1 {
        // Found byte for byte, only its replacement's line breaks of the
        // other kind: written as sent, those breaks the file's (another
        // tolerance the call allowed, such as `indentation`, is not used:
        // the text matched exactly).
        let lf = replace_text.replace("\r\n", "\n");
        let breaks = if c.crlf { lf.replace('\n', "\r\n") } else { lf };
        prop_assert_eq!(
            &after,
            &file.replacen(&search_text, &breaks, 1),
            "{}",
            ctx()
        );
        return Ok(Tally::Applied(vec!["line_endings".to_string()]));
    }
    let (f, w) = (split_lines(&file), split_lines(&after));
    let n = c.lines.len();
    prop_assert_eq!(
        w.len(),
        c.a + replace.len() + (n - c.b),
        "line count{}",
        ctx()
    );
    prop_assert_eq!(&w[..c.a], &f[..c.a], "lines before the window{}", ctx());
    prop_assert_eq!(
        &w[w.len() - (n - c.b)..],
        &f[c.b..],
        "lines after the window{}",
        ctx()
    );
    for line in &w {
        prop_assert!(
            line.ends_with(c.eol()),
            "line ending of {:?}{}",
            line,
            ctx()
        );
        prop_assert!(!c.crlf || !content(line).contains('\r'), "{}", ctx());
    }
    // The block starts inside the window's first line (after its
    // indentation): the file keeps that indentation before the first line.
    // (With the indentation tolerance the block names the whole line, and
    // its first line is re-indented like the others.)
    let first_lead = c.file_lead(c.lines[c.a].0);
    let mid = !c.tol[IND] && search[0].lead.is_empty() && !first_lead.is_empty();
    // Depths whose block indentation pairs with a file line's.
    let paired: Vec<usize> = search
        .iter()
        .enumerate()
        .filter(|(k, s)| (*k > 0 || !mid) && s.depth.is_some())
        .map(|(_, s)| s.depth.unwrap())
        .collect();
    for (j, (p, from)) in replace.iter().enumerate() {
        let got = content(w[c.a + j]);
        // A line the caller kept is the file's line, byte for byte (also
        // when it moves onto or off the line the block starts inside).
        if let From::Context(i) = *from {
            prop_assert_eq!(
                got,
                content(f[i]),
                "kept line {} is not the file's{}",
                c.a + j + 1,
                ctx()
            );
            continue;
        }
        let wanted = if j == 0 && mid {
            format!("{first_lead}{}", p.full())
        } else {
            p.full()
        };
        prop_assert_eq!(
            key(got, &c.tol),
            key(&wanted, &c.tol),
            "line {} is not the caller's line {:?}{}",
            c.a + j + 1,
            wanted,
            ctx()
        );
        if c.tol[IND] && !(j == 0 && mid) {
            if let Some(d) = p.depth.filter(|d| paired.contains(d)) {
                // A line that takes the place of a first line the block
                // started inside may instead keep that line's indentation
                // (it changes that line).
                let in_place = j == 0 && search[0].lead.is_empty() && lead(got) == first_lead;
                prop_assert!(
                    lead(got) == c.file_lead(d) || in_place,
                    "line {} is not indented like the file's lines of its depth{}",
                    c.a + j + 1,
                    ctx()
                );
            }
        } else if j == 0 && mid {
            prop_assert_eq!(lead(got), lead(&wanted), "{}", ctx());
        }
    }
    let with = r["matched_with"].as_array().unwrap();
    Ok(Tally::Applied(
        with.iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect(),
    ))
}

/// `Some(true)`: every indentation given is tabs alone; `Some(false)`:
/// spaces alone; `None`: both, or none indented.
fn pure_style(leads: impl Iterator<Item = String>) -> Option<bool> {
    let mut seen = None;
    for l in leads.filter(|l| !l.is_empty()) {
        let tabs = l.bytes().all(|b| b == b'\t');
        if !tabs && !l.bytes().all(|b| b == b' ') || seen.is_some_and(|s| s != tabs) {
            return None;
        }
        seen = Some(tabs);
    }
    seen
}

/// Returns the fuzz level the hunk was located at.
fn check_codex(root: &Path, c: &Case) -> Result<String, TestCaseError> {
    let file = c.file();
    let path = root.join("f.txt");
    std::fs::write(&path, &file).unwrap();
    let search = c.search(true);
    let replace = c.replace(&search, true);
    // The hunk: the replacement's lines in order, each block line before
    // the lines that replace it.
    let mut hunk = String::new();
    let mut next = 0; // next block line not yet in the hunk
    for (l, from) in &replace {
        match *from {
            From::Context(i) => {
                for s in &search[next..i - c.a] {
                    hunk.push_str(&format!("-{}\n", s.full()));
                }
                hunk.push_str(&format!(" {}\n", l.full()));
                next = i - c.a + 1;
            }
            From::Added => hunk.push_str(&format!("+{}\n", l.full())),
        }
    }
    for s in &search[next..] {
        hunk.push_str(&format!("-{}\n", s.full()));
    }
    let patch = format!("*** Begin Patch\n*** Update File: f.txt\n@@\n{hunk}*** End Patch\n");
    let r = api::apply_patch(&json!(patch), Some(&opts(root)));
    let after = std::fs::read_to_string(&path).unwrap();
    // Old lines indented in one style and the file's there in the other
    // (tabs, spaces), found with their indentation forgiven: added lines
    // take the file's style at their depth, or nothing is written.
    let old_leads = search
        .iter()
        .filter(|l| !l.text.trim().is_empty())
        .map(|l| l.lead.clone());
    let file_leads = (c.a..c.b)
        .filter(|&i| !c.lines[i].1.trim().is_empty())
        .map(|i| c.file_lead(c.lines[i].0));
    let (o, f) = (pure_style(old_leads), pure_style(file_leads));
    let restyled = o.is_some() && f.is_some() && o != f;
    if restyled
        && r["ok"] != true
        && r["message"]
            .as_str()
            .unwrap_or_default()
            .contains("indentation forgiven")
    {
        prop_assert_eq!(&after, &file, "a refusal wrote");
        return Ok("refused: indentation".to_string());
    }
    // Depths the hunk's old lines show, where the file's depth is known.
    let paired: Vec<usize> = search
        .iter()
        .filter(|l| !l.text.trim().is_empty())
        .filter_map(|l| l.depth)
        .collect();
    // Restyled lines at a depth no old line shows: the file's step there is
    // a guess, so their indentation is not compared.
    let mut loose: Vec<usize> = Vec::new();
    let mut expected: String = (0..c.a).map(|i| c.file_line(i) + c.eol()).collect();
    for (j, (l, from)) in replace.iter().enumerate() {
        match *from {
            From::Context(i) => expected.push_str(&c.file_line(i)),
            From::Added if restyled && !l.text.trim().is_empty() => match l.depth {
                // (A line in place of a first line sent without its
                // indentation may take that line's, as a tolerant match's
                // replacement does.)
                Some(d) if paired.contains(&d) && !(j == 0 && c.strip_first) => {
                    expected.push_str(&format!("{}{}{}", c.file_lead(d), l.text, l.trail))
                }
                _ => {
                    loose.push(c.a + j);
                    expected.push_str(&l.full())
                }
            },
            From::Added => expected.push_str(&l.full()),
        }
        expected.push_str(c.eol());
    }
    expected.extend((c.b..c.lines.len()).map(|i| c.file_line(i) + c.eol()));
    if r["ok"] != true
        && r["message"]
            .as_str()
            .unwrap_or_default()
            .contains("may have been meant for either")
    {
        // Another place much like the hunk's lines as they are (a rival, as
        // for a tolerant `patchFile` match): refused, nothing written.
        prop_assert_eq!(&after, &file, "a refusal wrote");
        return Ok("refused as rival".to_string());
    }
    prop_assert_eq!(&r["ok"], true, "{}\n{}\n{:?}", r, patch, file);
    let unlead = |t: &str, k: usize| -> String {
        t.split_inclusive('\n')
            .enumerate()
            .map(|(i, l)| {
                if loose.contains(&i) {
                    l.trim_start()
                } else {
                    l
                }
            })
            .take(k)
            .collect()
    };
    let all = usize::MAX;
    prop_assert_eq!(
        unlead(&after, all),
        unlead(&expected, all),
        "{}\n{:?}",
        patch,
        file
    );
    let level = &r["files"][0]["hunks"][0]["level"];
    Ok(level
        .as_str()
        .unwrap_or_else(|| panic!("no level: {r}"))
        .to_string())
}

fn check_edit_blocks(root: &Path, c: &Case) -> Result<(), TestCaseError> {
    let file = c.file();
    let path = root.join("f.txt");
    std::fs::write(&path, &file).unwrap();
    // Exact lines, written with LF whatever the file uses.
    let search = c.search(false);
    let replace = c.replace(&search, false);
    let lines = |ls: Vec<String>| ls.join("\n");
    let text = format!(
        "f.txt\n<<<<<<< SEARCH\n{}\n=======\n{}\n>>>>>>> REPLACE\n",
        lines(search.iter().map(Line::full).collect()),
        lines(replace.iter().map(|(l, _)| l.full()).collect())
    );
    let r = api::apply_edit_blocks(&json!(text), Some(&opts(root)));
    let after = std::fs::read_to_string(&path).unwrap();
    let mut expected: String = (0..c.a).map(|i| c.file_line(i) + c.eol()).collect();
    for (l, _) in &replace {
        expected.push_str(&l.full());
        expected.push_str(c.eol());
    }
    expected.extend((c.b..c.lines.len()).map(|i| c.file_line(i) + c.eol()));
    prop_assert_eq!(&r["ok"], true, "{}\n{}\n{:?}", r, text, file);
    prop_assert_eq!(after, expected, "{}\n{:?}", text, file);
    Ok(())
}

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn runner(n: u32) -> TestRunner {
    TestRunner::new(Config {
        cases: n,
        failure_persistence: None,
        ..Config::default()
    })
}

#[test]
fn patch_file_with_match_writes_caller_lines_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let n = cases(1000);
    let exact = std::cell::Cell::new(0u32);
    let applied = std::cell::Cell::new(0u32);
    let refused = std::cell::Cell::new(0u32);
    let used = std::cell::RefCell::new(std::collections::BTreeMap::<String, u32>::new());
    runner(n)
        .run(&case(), |c| {
            let t = match check_patch_file(dir.path(), &c)? {
                Tally::Exact => &exact,
                Tally::Applied(with) => {
                    for t in with {
                        *used.borrow_mut().entry(t).or_default() += 1;
                    }
                    &applied
                }
                Tally::Refused => &refused,
            };
            t.set(t.get() + 1);
            Ok(())
        })
        .unwrap();
    let (e, a, r) = (exact.get(), applied.get(), refused.get());
    let used = used.into_inner();
    println!(
        "patch_file with match: {a} applied with tolerances {used:?}, {r} refused as uncertain, {e} found exactly"
    );
    // Every tolerance was needed by some case.
    assert_eq!(used.len(), 4, "{used:?}");
    assert!(a >= (a + r) * 9 / 10, "{a} applied, {r} refused");
}

/// Cases the property once failed on, replayed on every run.
fn known_cases() -> Vec<Case> {
    let lines = |ls: &[(usize, &str)]| -> Vec<(usize, String, &'static str)> {
        ls.iter().map(|&(d, t)| (d, t.to_string(), "")).collect()
    };
    let base = Case {
        lines: Vec::new(),
        crlf: false,
        unit_f: "\t",
        base_f: 0,
        a: 0,
        b: 2,
        tol: [false; 4],
        flip_endings: false,
        flip_trail: vec![false; 5],
        unit_s: "\t",
        base_s: 0,
        fold: false,
        strip_first: true,
        search_nl: false,
        ops: Vec::new(),
        inserts: Vec::new(),
    };
    // Each block starts after the indentation of its first line and ends
    // on a line the file does not indent: the block's column 0 stands for
    // both depths. New lines at column 0 were given the first line's
    // indentation when the line pairing took them for a change of it.
    vec![
        Case {
            lines: lines(&[
                (0, "v0"),
                (0, "v1"),
                (0, "v2"),
                (0, "v3"),
                (1, "foo() v4"),
                (0, "v5"),
            ]),
            a: 4,
            b: 6,
            tol: [false, true, true, true],
            flip_trail: vec![false, true, false, false, false],
            ops: vec![(Op::Rewrite, true), (Op::Keep, false)],
            inserts: vec![(1, false)],
            ..base.clone()
        },
        Case {
            lines: lines(&[(1, "v0 = 1;"), (0, "v1")]),
            tol: [true, false, true, false],
            flip_endings: true,
            ops: vec![(Op::Delete, false), (Op::Keep, false)],
            inserts: vec![(0, false), (1, false)],
            ..base.clone()
        },
        Case {
            lines: lines(&[(2, "wait… v0"), (0, "v1"), (0, "v2 “q”")]),
            tol: [true, false, true, false],
            flip_endings: true,
            unit_s: "    ",
            ops: vec![(Op::Delete, false), (Op::Prefix, false)],
            inserts: vec![(0, false), (0, false)],
            ..base
        },
    ]
}

#[test]
fn patch_file_with_match_known_cases() {
    let dir = tempfile::tempdir().unwrap();
    for c in known_cases() {
        if let Err(e) = check_patch_file(dir.path(), &c) {
            panic!("{e}\n{c:?}");
        }
    }
}

#[test]
fn codex_hunks_write_file_lines_and_added_lines_verbatim_or_in_the_files_style() {
    let dir = tempfile::tempdir().unwrap();
    let levels = std::cell::RefCell::new(std::collections::BTreeMap::<String, u32>::new());
    runner(cases(400))
        .run(&case(), |c| {
            *levels
                .borrow_mut()
                .entry(check_codex(dir.path(), &c)?)
                .or_default() += 1;
            Ok(())
        })
        .unwrap();
    let levels = levels.into_inner();
    println!("Codex hunks located at: {levels:?}");
    // Every fuzz level was needed by some case.
    let located = levels.keys().filter(|l| !l.starts_with("refused")).count();
    assert_eq!(located, 4, "{levels:?}");
}

#[test]
fn edit_blocks_write_file_lines_and_caller_lines() {
    let dir = tempfile::tempdir().unwrap();
    runner(cases(200))
        .run(&case(), |c| check_edit_blocks(dir.path(), &c))
        .unwrap();
}
