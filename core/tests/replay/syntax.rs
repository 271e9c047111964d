//! The syntax guard on real history (`npm run bench -- syntax`; a slice
//! runs with the test suite). Three measures, per language:
//!
//! - false reports: every file a commit changed or added, old text to new
//!   text whole, is checked; a report with errors on a real final state is
//!   a false report (unless the commit truly left a syntax error: each one
//!   is listed to be judged). The goal is none.
//! - intermediate states: a file whose change has several hunks, each hunk
//!   applied alone to the old text (the state an agent editing hunk by hunk
//!   leaves between its edits): the share the check reports. Two cuts: the
//!   hunks of the line diff, and git's hunks (changes 6 lines apart or
//!   less, the 3 lines of context either side touching, are one).
//! - injected breakage: on the added lines of each real hunk (of a file
//!   whose real new text parses without any error), one breakage of each
//!   kind that applies to the language (see [`Kind`]); the check must
//!   report it. An injection can leave a valid file (a colon deleted in a
//!   string, the last statement of a block cut), so a second judge is
//!   asked: the parse of the injected file has an error at all. Both rates
//!   are shown: reported of all injections, and reported of those the
//!   judge calls broken (the goal: 95 % and more).

use std::collections::BTreeMap;
use std::ops::Range;

use patch_file_core::result::syntax::SyntaxReport;
use patch_file_core::testing::check::{syntax, syntax_language, syntax_parse_errors};
use serde_json::{json, Value};

use crate::edits::{hunks, lines};
use crate::git::Git;

/// Changes this many lines apart or less are one git hunk (3 lines of
/// context either side).
const GIT_GAP: usize = 6;
/// Hunks of one file whose single-hunk states are checked, and hunks of
/// one file injected, at most (evenly spread over the file's hunks): a
/// vendored library's upgrade has thousands, each a parse of the whole
/// file.
const STATES_PER_FILE: usize = 24;
const INJECTED_PER_FILE: usize = 12;
/// Misses, and injections still valid, listed per language and kind at
/// most (every false report is listed).
const LISTED_MISSES: usize = 3;

/// A breakage injected into the added lines of a real hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A line that is only a closing delimiter (`}`, `);`, `]`, `end`,
    /// `fi`, `</div>`) dropped.
    DropCloser,
    /// A `=>`, or else a separating `:` (followed by a space or the line's
    /// end: not a symbol, a selector, a URL or half of `::`), outside
    /// quotes and before a comment, deleted.
    DeleteColon,
    /// The first `"` (else `'`) of a line that is not a comment deleted.
    UnbalanceQuote,
    /// Python, YAML, Ruby: the last line of an indented block cut.
    CutBlockEnd,
    /// Python: a statement line moved out of its block (indented as the
    /// line that opens it).
    Dedent,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::DropCloser,
        Kind::DeleteColon,
        Kind::UnbalanceQuote,
        Kind::CutBlockEnd,
        Kind::Dedent,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::DropCloser => "drop closer",
            Kind::DeleteColon => "delete : or =>",
            Kind::UnbalanceQuote => "unbalance quote",
            Kind::CutBlockEnd => "cut block end",
            Kind::Dedent => "dedent",
        }
    }

    fn applies(self, lang: &str) -> bool {
        match self {
            Kind::DropCloser | Kind::UnbalanceQuote => true,
            Kind::DeleteColon => !matches!(lang, "bash" | "html" | "toml"),
            Kind::CutBlockEnd => matches!(lang, "python" | "yaml" | "ruby"),
            Kind::Dedent => lang == "python",
        }
    }
}

/// One language's figures.
#[derive(Debug, Default, Clone)]
pub struct Lang {
    /// Final states checked, reported (false reports), not checked.
    pub files: usize,
    pub false_reports: usize,
    pub unchecked: usize,
    /// Files whose final state was clean and whose change has several
    /// hunks; their single-hunk states and how many were reported.
    pub multi: usize,
    pub states: usize,
    pub flagged: usize,
    pub multi_git: usize,
    pub states_git: usize,
    pub flagged_git: usize,
    /// Files not injected because their real new text has parse errors.
    pub not_clean: usize,
}

/// One language and kind's injections.
#[derive(Debug, Default, Clone)]
pub struct Injected {
    pub n: usize,
    pub reported: usize,
    pub unchecked: usize,
    /// Broken per the judge (the parse of the injected file has an error).
    pub broken: usize,
    pub misses: Vec<String>,
    /// Injections the judge calls valid (a few, to read).
    pub valid: Vec<String>,
}

/// A report on a real final state.
#[derive(Debug, Clone)]
pub struct FalseReport {
    pub commit: String,
    pub path: String,
    pub language: &'static str,
    pub first: String,
    pub errors: usize,
    /// The old text had parse errors too (the report then rests on
    /// telling the new errors from the old ones); `None`: a new file.
    pub old_broken: Option<bool>,
}

#[derive(Debug, Default)]
pub struct SyntaxRun {
    pub commits: usize,
    pub first: String,
    pub last: String,
    pub langs: BTreeMap<&'static str, Lang>,
    pub injected: BTreeMap<(&'static str, Kind), Injected>,
    pub false_reports: Vec<FalseReport>,
}

enum Outcome {
    Clean,
    Unchecked,
    Errors(String, usize),
}

fn outcome(r: Option<SyntaxReport>) -> Outcome {
    match r {
        None => Outcome::Clean,
        Some(r) if r.errors.is_empty() => Outcome::Unchecked,
        Some(r) => {
            let e = &r.errors[0];
            let text: String = e.text.trim().chars().take(100).collect();
            Outcome::Errors(
                format!(
                    "line {}:{} {} {:?} in {:?}",
                    e.line,
                    e.column,
                    e.problem.as_str(),
                    e.token,
                    text
                ),
                r.errors.len() + r.more_errors.unwrap_or(0),
            )
        }
    }
}

/// The syntax replay of `commits`, at most `cap` injections of each
/// language and kind.
pub fn syntax_run(git: &mut Git, commits: &[String], cap: usize) -> SyntaxRun {
    let mut run = SyntaxRun {
        commits: commits.len(),
        first: commits.first().cloned().unwrap_or_default(),
        last: commits.last().cloned().unwrap_or_default(),
        ..Default::default()
    };
    for c in commits {
        for f in git.changed(c) {
            let Some(new) = f.new.as_deref() else {
                continue;
            };
            let old = f.old.as_deref();
            let head = old.unwrap_or(new).as_bytes();
            let Some(lang) = syntax_language(&f.path, head) else {
                continue;
            };
            let lang = lang.as_str();
            let l = run.langs.entry(lang).or_default();
            l.files += 1;
            match outcome(syntax(&f.path, old.map(str::as_bytes), &[new.as_bytes()])) {
                Outcome::Clean => {}
                Outcome::Unchecked => {
                    l.unchecked += 1;
                    continue;
                }
                Outcome::Errors(first, errors) => {
                    l.false_reports += 1;
                    run.false_reports.push(FalseReport {
                        commit: c[..10].to_string(),
                        path: f.path.clone(),
                        language: lang,
                        first,
                        errors,
                        old_broken: old
                            .map(|o| syntax_parse_errors(&f.path, o.as_bytes()).is_some()),
                    });
                    continue;
                }
            }
            let Some(old) = old else {
                continue;
            };
            let (ol, nl) = (lines(old), lines(new));
            let hs = hunks(&ol, &nl);
            intermediate(l, &f.path, old, &ol, &nl, &hs);
            let wanted: Vec<Kind> = Kind::ALL
                .into_iter()
                .filter(|k| {
                    k.applies(lang) && run.injected.get(&(lang, *k)).is_none_or(|t| t.n < cap)
                })
                .collect();
            if wanted.is_empty() || hs.is_empty() {
                continue;
            }
            // The judge: the real new text parses without any error.
            if syntax_parse_errors(&f.path, new.as_bytes()).is_some() {
                l.not_clean += 1;
                continue;
            }
            let origin = format!("{}:{}", &c[..10], f.path);
            let code = code_lines(lang, &nl);
            for (_, n) in spread(&hs, INJECTED_PER_FILE) {
                let added: Vec<usize> = n.clone().filter(|&i| code[i]).collect();
                for &k in &wanted {
                    let t = run.injected.entry((lang, k)).or_default();
                    if t.n >= cap {
                        continue;
                    }
                    if let Some((at, text)) = inject(k, lang, &nl, &added) {
                        let origin = format!("{origin}:{}", at + 1);
                        score(t, &f.path, old, (&text, nl[at]), &origin);
                    }
                }
            }
        }
    }
    run
}

/// Each hunk (and each git hunk) of a file's change applied alone.
fn intermediate(
    l: &mut Lang,
    path: &str,
    old: &str,
    ol: &[&str],
    nl: &[&str],
    hs: &[(Range<usize>, Range<usize>)],
) {
    let mut git_hunks: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    for (o, n) in hs {
        match git_hunks.last_mut() {
            Some((lo, ln)) if o.start - lo.end <= GIT_GAP => {
                lo.end = o.end;
                ln.end = n.end;
            }
            _ => git_hunks.push((o.clone(), n.clone())),
        }
    }
    let alone = |o: &Range<usize>, n: &Range<usize>| -> bool {
        let a: usize = ol[..o.start].iter().map(|s| s.len()).sum();
        let b: usize = a + ol[o.clone()].iter().map(|s| s.len()).sum::<usize>();
        let block = nl[n.clone()].concat();
        let pieces = [&old.as_bytes()[..a], block.as_bytes(), &old.as_bytes()[b..]];
        matches!(
            outcome(syntax(path, Some(old.as_bytes()), &pieces)),
            Outcome::Errors(..)
        )
    };
    if hs.len() > 1 {
        l.multi += 1;
        for (o, n) in spread(hs, STATES_PER_FILE) {
            l.states += 1;
            l.flagged += usize::from(alone(o, n));
        }
    }
    if git_hunks.len() > 1 {
        l.multi_git += 1;
        for (o, n) in spread(&git_hunks, STATES_PER_FILE) {
            l.states_git += 1;
            l.flagged_git += usize::from(alone(o, n));
        }
    }
}

/// At most `k` of `all`, evenly spread.
fn spread<T>(all: &[T], k: usize) -> impl Iterator<Item = &T> {
    let n = all.len();
    let step = n.div_ceil(k.max(1)).max(1);
    all.iter().step_by(step)
}

/// The check of one injected file, and the judge when it says nothing.
fn score(t: &mut Injected, path: &str, old: &str, (text, line): (&str, &str), origin: &str) {
    t.n += 1;
    match outcome(syntax(path, Some(old.as_bytes()), &[text.as_bytes()])) {
        Outcome::Errors(..) => {
            t.reported += 1;
            t.broken += 1;
        }
        Outcome::Unchecked => t.unchecked += 1,
        Outcome::Clean => {
            // Broken per the judge, yet not reported: a miss.
            if let Outcome::Errors(first, _) = outcome(syntax_parse_errors(path, text.as_bytes())) {
                t.broken += 1;
                if t.misses.len() < LISTED_MISSES {
                    t.misses.push(format!("{origin}: {first}"));
                }
            } else if t.valid.len() < LISTED_MISSES {
                t.valid.push(format!("{origin}: {:?}", line.trim()));
            }
        }
    }
}

/// The lines breakage may be injected into: for Python, those outside
/// triple-quoted strings (a docstring's text is not code); every line
/// otherwise.
fn code_lines(lang: &str, nl: &[&str]) -> Vec<bool> {
    if lang != "python" {
        return vec![true; nl.len()];
    }
    let mut open: Option<&str> = None;
    nl.iter()
        .map(|l| {
            let mut code = open.is_none();
            let mut rest = *l;
            loop {
                let next = ["\"\"\"", "'''"]
                    .into_iter()
                    .filter(|q| open.is_none_or(|o| o == *q))
                    .filter_map(|q| rest.find(q).map(|at| (at, q)))
                    .min();
                let Some((at, q)) = next else { break };
                code = false;
                open = if open.is_some() { None } else { Some(q) };
                rest = &rest[at + 3..];
            }
            code
        })
        .collect()
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start_matches([' ', '\t']).len()
}

fn blank(l: &str) -> bool {
    l.trim().is_empty()
}

fn comment(l: &str) -> bool {
    let t = l.trim_start();
    ["//", "#", "/*", "*", "<!--", "--"]
        .iter()
        .any(|p| t.starts_with(p))
}

/// A line that is only a closing delimiter in `lang`.
fn closer(l: &str, lang: &str) -> bool {
    let t = l.trim();
    let t = t.strip_suffix([';', ',']).unwrap_or(t);
    if t.is_empty() {
        return false;
    }
    match lang {
        "html" => {
            t.starts_with("</")
                && t.ends_with('>')
                && t[2..t.len() - 1]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-')
        }
        "ruby" if t == "end" => true,
        "bash" if matches!(t, "fi" | "done" | "esac") => true,
        _ => t.chars().all(|c| matches!(c, '}' | ']' | ')')),
    }
}

/// The byte offset and length of the first `=>`, or else of the first
/// `:` followed by a space or the line's end, outside quotes and before a
/// comment.
fn colon_at(l: &str, lang: &str) -> Option<(usize, usize)> {
    let b = l.as_bytes();
    let hash_comments = matches!(lang, "python" | "yaml" | "ruby" | "php");
    let mut quote: Option<u8> = None;
    let mut colon = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) => {
                if c == b'\\' {
                    i += 1;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                b'"' | b'\'' | b'`' => quote = Some(c),
                b'/' if b.get(i + 1) == Some(&b'/') => break,
                b'#' if hash_comments => break,
                b'=' if b.get(i + 1) == Some(&b'>') => return Some((i, 2)),
                b':' if b.get(i + 1) == Some(&b':') => i += 1,
                b':' if colon.is_none() && b.get(i + 1).is_none_or(|c| c.is_ascii_whitespace()) => {
                    colon = Some((i, 1))
                }
                _ => {}
            },
        }
        i += 1;
    }
    colon
}

/// The new text with one breakage of `kind` in one of the added lines
/// `added` of `nl`, and the 0-based line it touches; `None` when no added
/// line lends itself.
fn inject(kind: Kind, lang: &str, nl: &[&str], added: &[usize]) -> Option<(usize, String)> {
    let with = |i: usize, line: Option<String>| -> String {
        let mut out = nl[..i].concat();
        if let Some(l) = line {
            out.push_str(&l);
        }
        out.push_str(&nl[i + 1..].concat());
        out
    };
    match kind {
        Kind::DropCloser => {
            let i = added.iter().rev().copied().find(|&i| closer(nl[i], lang))?;
            Some((i, with(i, None)))
        }
        Kind::DeleteColon => added.iter().find_map(|&i| {
            if comment(nl[i]) {
                return None;
            }
            let (at, len) = colon_at(nl[i], lang)?;
            let l = nl[i];
            Some((i, with(i, Some(format!("{}{}", &l[..at], &l[at + len..])))))
        }),
        Kind::UnbalanceQuote => added.iter().find_map(|&i| {
            let l = nl[i];
            if comment(l) {
                return None;
            }
            let at = l.find('"').or_else(|| l.find('\''))?;
            Some((i, with(i, Some(format!("{}{}", &l[..at], &l[at + 1..])))))
        }),
        Kind::CutBlockEnd => added.iter().find_map(|&i| {
            let l = nl[i];
            if blank(l) || comment(l) || indent(l) == 0 || (lang == "ruby" && l.trim() == "end") {
                return None;
            }
            let next = nl[i + 1..].iter().find(|x| !blank(x) && !comment(x));
            next.is_none_or(|x| indent(x) < indent(l))
                .then(|| (i, with(i, None)))
        }),
        Kind::Dedent => added.iter().find_map(|&i| {
            let l = nl[i];
            let t = l.trim_start();
            if blank(l) || comment(l) || indent(l) == 0 || t.starts_with([')', ']', '}']) {
                return None;
            }
            // A statement: the line above is no deeper, and does not leave
            // a bracket or a line open.
            let above = nl[..i].iter().rev().find(|x| !blank(x) && !comment(x))?;
            let end = above.trim_end();
            if indent(above) > indent(l) || end.ends_with(['(', '[', '{', ',', '\\']) {
                return None;
            }
            // Out of its block: indented as the line that opens it.
            let opener = nl[..i]
                .iter()
                .rev()
                .find(|x| !blank(x) && !comment(x) && indent(x) < indent(l))?;
            let to = &opener[..indent(opener)];
            Some((i, with(i, Some(format!("{to}{t}")))))
        }),
    }
}

fn pct(a: usize, n: usize) -> String {
    if n == 0 {
        "-".into()
    } else {
        format!("{:.1} %", 100.0 * a as f64 / n as f64)
    }
}

/// The figures as Markdown tables, and every false report.
pub fn print_syntax(r: &SyntaxRun) {
    println!(
        "syntax guard on {} commits ({} .. {})",
        r.commits,
        &r.first[..r.first.len().min(10)],
        &r.last[..r.last.len().min(10)]
    );
    println!("| language | files | false reports | unchecked | multi-hunk files | single-hunk states flagged | multi-git-hunk files | single-git-hunk states flagged | not injected (real text has errors) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (lang, l) in &r.langs {
        println!(
            "| {lang} | {} | {} | {} | {} | {} / {} ({}) | {} | {} / {} ({}) | {} |",
            l.files,
            l.false_reports,
            l.unchecked,
            l.multi,
            l.flagged,
            l.states,
            pct(l.flagged, l.states),
            l.multi_git,
            l.flagged_git,
            l.states_git,
            pct(l.flagged_git, l.states_git),
            l.not_clean
        );
    }
    println!();
    println!("| language | injected | cases | reported | broken per parser | reported of broken | unchecked |");
    println!("|---|---|---|---|---|---|---|");
    for ((lang, k), t) in &r.injected {
        if t.n == 0 {
            continue;
        }
        println!(
            "| {lang} | {} | {} | {} | {} ({}) | {} | {} |",
            k.name(),
            t.n,
            pct(t.reported, t.n),
            t.broken,
            pct(t.broken, t.n),
            pct(t.reported, t.broken),
            t.unchecked
        );
    }
    for f in &r.false_reports {
        let old = match f.old_broken {
            None => "new file",
            Some(true) => "old text had errors",
            Some(false) => "old text clean",
        };
        println!(
            "  false report: {} {} ({}, {old}, {} errors): {}",
            f.commit, f.path, f.language, f.errors, f.first
        );
    }
    for ((lang, k), t) in &r.injected {
        for m in &t.misses {
            println!("  missed ({lang}, {}): {m}", k.name());
        }
        for v in &t.valid {
            println!("  still valid ({lang}, {}): {v}", k.name());
        }
    }
}

/// The figures as JSON.
pub fn syntax_json(r: &SyntaxRun) -> Value {
    let langs: serde_json::Map<String, Value> = r
        .langs
        .iter()
        .map(|(lang, l)| {
            let kinds: serde_json::Map<String, Value> = r
                .injected
                .iter()
                .filter(|((g, _), t)| g == lang && t.n > 0)
                .map(|((_, k), t)| {
                    (
                        k.name().to_string(),
                        json!({"cases": t.n, "reported": t.reported, "broken": t.broken, "unchecked": t.unchecked}),
                    )
                })
                .collect();
            (
                lang.to_string(),
                json!({
                    "files": l.files, "false_reports": l.false_reports, "unchecked": l.unchecked,
                    "hunks": {"files": l.multi, "states": l.states, "flagged": l.flagged},
                    "git_hunks": {"files": l.multi_git, "states": l.states_git, "flagged": l.flagged_git},
                    "not_clean": l.not_clean,
                    "injected": kinds,
                }),
            )
        })
        .collect();
    json!({
        "commits": r.commits,
        "first": r.first,
        "last": r.last,
        "languages": langs,
        "false_reports": r.false_reports.iter().map(|f| json!({
            "commit": f.commit, "path": f.path, "language": f.language, "first": f.first, "errors": f.errors,
            "old_broken": f.old_broken,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injections_touch_the_line_they_mean() {
        let nl = ["fn f() {\n", "    let a = b(\"x\");\n", "}\n"];
        let (i, t) = inject(Kind::DropCloser, "rust", &nl, &[0, 1, 2]).unwrap();
        assert_eq!((i, t.as_str()), (2, "fn f() {\n    let a = b(\"x\");\n"));
        let (_, t) = inject(Kind::UnbalanceQuote, "rust", &nl, &[0, 1, 2]).unwrap();
        assert!(t.contains("b(x\");"));
        assert_eq!(colon_at("a::b(c: d)", "rust"), Some((6, 1)));
        assert_eq!(colon_at("'a:b' => c", "php"), Some((6, 2)));
        assert_eq!(colon_at("x = 1  # a: b", "python"), None);
        assert_eq!(colon_at("task(:spec) { x }", "ruby"), None);
        assert_eq!(colon_at("if a:\n", "python"), Some((4, 1)));
        let py = ["def f():\n", "    a = 1\n", "    b = 2\n", "c = 3\n"];
        let (i, t) = inject(Kind::Dedent, "python", &py, &[1, 2]).unwrap();
        assert_eq!((i, t.as_str()), (1, "def f():\na = 1\n    b = 2\nc = 3\n"));
        let (i, _) = inject(Kind::CutBlockEnd, "python", &py, &[1, 2]).unwrap();
        assert_eq!(i, 2);
        let doc = [
            "def f():\n",
            "    \"\"\"Doc\n",
            "    text\n",
            "    \"\"\"\n",
            "    x = '''a'''\n",
            "    y = 1\n",
        ];
        assert_eq!(
            code_lines("python", &doc),
            [true, false, false, false, false, true]
        );
        assert!(closer("  });\n", "javascript"));
        assert!(closer("</div>\n", "html"));
        assert!(closer("  end\n", "ruby"));
        assert!(!closer("  end\n", "python"));
    }
}
