//! Lazy variants of real edits (`npm run bench -- lazy`): each hunk of
//! this repository's history, sent with a few lines of context as an agent
//! sends it, is made lazy by writing an elision marker
//! (`// ... existing code ...` in the file's comment syntax) in place of
//! some of the unchanged lines it shows, and each whole file a commit
//! changed is written lazily, its unchanged stretches elided. The check on
//! new text ([`lazy_outcome`], what every entry point runs on the file's
//! final content) must write the intended file or nothing:
//!
//! - `bounded`: the marker stands between unchanged lines (the context
//!   above or below the change, its first and last line kept): expanded
//!   exactly (the goal: 95 % and more), never wrong;
//! - `touching`: the marker is next to the changed lines: refused, or
//!   expanded exactly; never wrong;
//! - `whole file`: the new file with each unchanged stretch of 5 lines or
//!   more elided but its first and last line (at the file's edges, all
//!   but the line next to the change): never wrong, 80 % expanded;
//! - the real edits and the real whole files (no marker added) must be
//!   written as sent: a refusal or an expansion there is a false alarm.

use std::collections::BTreeMap;

use patch_file_core::testing::check::{lazy_outcome, Lazy};
use serde_json::{json, Value};

use crate::edits::{hunks, lines};
use crate::git::Git;

/// Context lines an edit shows above and below its change.
const CONTEXT: usize = 4;

/// One kind's figures.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub n: usize,
    pub exact: usize,
    pub refused: usize,
    pub wrong: usize,
    pub examples: Vec<String>,
    /// Refusals by reason.
    pub why: BTreeMap<&'static str, usize>,
}

/// The figures of a lazy replay.
#[derive(Debug, Default)]
pub struct LazyReport {
    pub commits: usize,
    pub kinds: BTreeMap<&'static str, Tally>,
    /// Real edits and real whole files: (cases, refused, expanded).
    pub real_edits: (usize, usize, usize),
    pub real_files: (usize, usize, usize),
    pub real_examples: Vec<String>,
}

/// The marker an agent writes in a file of this name, indented as `like`.
fn marker(path: &str, like: &str) -> String {
    let indent: String = like
        .chars()
        .take_while(|c| c.is_whitespace() && *c != '\n' && *c != '\r')
        .collect();
    let ext = path.rsplit('.').next().unwrap_or("");
    let body = match ext {
        "py" | "sh" | "yml" | "yaml" | "toml" | "rb" | "gitignore" | "npmignore" => {
            "# ... existing code ..."
        }
        "md" | "html" => "<!-- ... existing content ... -->",
        _ => "// ... existing code ...",
    };
    let eol = if like.ends_with("\r\n") { "\r\n" } else { "\n" };
    format!("{indent}{body}{eol}")
}

/// The new text as the engine sees it: the file's bytes before and after
/// the edit's block (`span`, `None` for a whole-file write) borrowed from
/// the old text, the block the caller's own.
fn pieces<'a>(old: &'a str, span: Option<(usize, usize)>, block: &'a str) -> Vec<&'a [u8]> {
    match span {
        Some((a, b)) => vec![&old.as_bytes()[..a], block.as_bytes(), &old.as_bytes()[b..]],
        None => vec![block.as_bytes()],
    }
}

fn score(
    t: &mut Tally,
    (kind, origin, path): (&str, &str, &str),
    old: &str,
    (span, lazy): (Option<(usize, usize)>, &str),
    intended: &str,
) {
    t.n += 1;
    match lazy_outcome(path, old.as_bytes(), &pieces(old, span, lazy)) {
        Lazy::Expanded(b) if b == intended.as_bytes() => t.exact += 1,
        Lazy::Refused(why) => {
            t.refused += 1;
            *t.why.entry(why).or_default() += 1;
            // (`PFT_LAZY_DUMP_REFUSED=<reason>` with `PFT_LAZY_DUMP=<dir>`:
            // the cases refused for that reason too.)
            if let (Ok(dir), Ok(w)) = (
                std::env::var("PFT_LAZY_DUMP"),
                std::env::var("PFT_LAZY_DUMP_REFUSED"),
            ) {
                let k = t.why[why];
                if w == why && k <= 30 {
                    let k = format!("{dir}/refused-{}{k}", kind.replace(' ', "_"));
                    let _ = std::fs::write(format!("{k}.old"), old);
                    let _ = std::fs::write(format!("{k}.lazy"), pieces(old, span, lazy).concat());
                    let _ = std::fs::write(format!("{k}.want"), intended);
                }
            }
        }
        other => {
            t.wrong += 1;
            if let Ok(dir) = std::env::var("PFT_LAZY_DUMP") {
                let k = t.wrong;
                if k <= 30 {
                    let _ = std::fs::write(format!("{dir}/{}{k}.old", kind.replace(" ", "_")), old);
                    let _ = std::fs::write(
                        format!("{dir}/{}{k}.lazy", kind.replace(" ", "_")),
                        pieces(old, span, lazy).concat(),
                    );
                    let _ = std::fs::write(
                        format!("{dir}/{}{k}.want", kind.replace(" ", "_")),
                        intended,
                    );
                    if let Lazy::Expanded(b) = &other {
                        let _ =
                            std::fs::write(format!("{dir}/{}{k}.got", kind.replace(" ", "_")), b);
                    }
                }
            }
            if t.examples.len() < 5 {
                let how = match other {
                    Lazy::Kept => "written with the marker".to_string(),
                    _ => "expanded otherwise".to_string(),
                };
                t.examples.push(format!("{origin}: {how}"));
            }
        }
    }
}

/// A real text (no marker added) must be written as sent.
fn real(
    r: &mut (usize, usize, usize),
    ex: &mut Vec<String>,
    (origin, path): (&str, &str),
    old: &str,
    (span, new): (Option<(usize, usize)>, &str),
) {
    r.0 += 1;
    match lazy_outcome(path, old.as_bytes(), &pieces(old, span, new)) {
        Lazy::Kept => {}
        Lazy::Refused(why) => {
            r.1 += 1;
            if ex.len() < 10 {
                ex.push(format!("{origin}: refused ({why})"));
            }
            if let Ok(dir) = std::env::var("PFT_LAZY_DUMP") {
                if r.1 <= 30 {
                    let k = format!("{dir}/real{}{}", r.1, if span.is_some() { "" } else { "w" });
                    let _ = std::fs::write(format!("{k}.old"), old);
                    let _ = std::fs::write(format!("{k}.new"), pieces(old, span, new).concat());
                }
            }
        }
        Lazy::Expanded(_) => {
            r.2 += 1;
            if ex.len() < 10 {
                ex.push(format!("{origin}: expanded"));
            }
        }
    }
}

/// The lazy variants of one file's change.
fn file(rep: &mut LazyReport, origin: &str, path: &str, old: &str, new: &str, cap: usize) {
    let (ol, nl) = (lines(old), lines(new));
    let hs = hunks(&ol, &nl);
    if hs.is_empty() {
        return;
    }
    real(
        &mut rep.real_files,
        &mut rep.real_examples,
        (origin, path),
        old,
        (None, new),
    );
    whole_file(rep, origin, path, old, &nl, &hs);
    for (o, n) in hs {
        let ka = o.start.min(CONTEXT);
        let kb = (ol.len() - o.end).min(CONTEXT);
        // The edit's block: the change and its context, as the agent
        // sends it; the rest of the file is not the edit's.
        let a: usize = ol[..o.start - ka].iter().map(|l| l.len()).sum();
        let b: usize = a + ol[o.start - ka..o.end + kb]
            .iter()
            .map(|l| l.len())
            .sum::<usize>();
        let span = Some((a, b));
        let build = |above: &[&str], below: &[&str]| -> String {
            [above.concat(), nl[n.clone()].concat(), below.concat()].concat()
        };
        let ctx_a: Vec<&str> = ol[o.start - ka..o.start].to_vec();
        let ctx_b: Vec<&str> = ol[o.end..o.end + kb].to_vec();
        let block = build(&ctx_a, &ctx_b);
        let intended = [&old[..a], &block[..], &old[b..]].concat();
        real(
            &mut rep.real_edits,
            &mut rep.real_examples,
            (origin, path),
            old,
            (span, &block),
        );
        let m = |like: &str| marker(path, like);
        let mut variants: Vec<(&'static str, String)> = Vec::new();
        if ka >= 3 {
            let mut a = vec![ctx_a[0]];
            let mk = m(ctx_a[1]);
            let keep_last = ctx_a[ka - 1];
            variants.push((
                "bounded",
                build(&[a.clone(), vec![mk.as_str(), keep_last]].concat(), &ctx_b),
            ));
            a.push(&mk);
            let _ = a;
        }
        if kb >= 3 {
            let mk = m(ctx_b[1]);
            variants.push((
                "bounded",
                build(&ctx_a, &[ctx_b[0], mk.as_str(), ctx_b[kb - 1]]),
            ));
        }
        // Next to the change: its added lines, or (a hunk that only
        // deletes) the lines it deletes, which the lazy text does not show.
        let touching = if n.is_empty() {
            "beside a deletion"
        } else {
            "touching"
        };
        if ka >= 2 {
            let mk = m(ctx_a[1]);
            variants.push((touching, build(&[ctx_a[0], mk.as_str()], &ctx_b)));
        }
        if kb >= 2 {
            let mk = m(ctx_b[0]);
            variants.push((touching, build(&ctx_a, &[mk.as_str(), ctx_b[kb - 1]])));
        }
        for (kind, lazy) in variants {
            let t = rep.kinds.entry(kind).or_default();
            if t.n < cap {
                score(t, (kind, origin, path), old, (span, &lazy), &intended);
            }
        }
    }
}

/// The whole new file written lazily: every unchanged stretch of 5 lines
/// or more elided but its first and last line (at the file's start or end,
/// but its line next to the change).
fn whole_file(
    rep: &mut LazyReport,
    origin: &str,
    path: &str,
    old: &str,
    nl: &[&str],
    hs: &[(std::ops::Range<usize>, std::ops::Range<usize>)],
) {
    // The unchanged stretches of the new file, between the hunks.
    let mut equal = Vec::new();
    let mut at = 0;
    for (_, n) in hs {
        equal.push((at, n.start));
        at = n.end;
    }
    equal.push((at, nl.len()));
    let mut out = String::new();
    let mut cursor = 0;
    let mut elided = 0;
    for (k, &(p, q)) in equal.iter().enumerate() {
        let (first, last) = (k == 0, k + 1 == equal.len());
        let (a, b) = match (first, last) {
            (true, _) if q >= 4 && p == 0 => (0, q - 1),
            (_, true) if q - p >= 4 => (p + 1, q),
            _ if q - p >= 5 => (p + 1, q - 1),
            _ => continue,
        };
        if a >= b {
            continue;
        }
        out.push_str(&nl[cursor..a].concat());
        out.push_str(&marker(path, nl[a]));
        cursor = b;
        elided += 1;
    }
    if elided == 0 {
        return;
    }
    out.push_str(&nl[cursor..].concat());
    let t = rep.kinds.entry("whole file").or_default();
    score(
        t,
        ("whole file", origin, path),
        old,
        (None, &out),
        &nl.concat(),
    );
}

/// The lazy replay of `commits`, at most `cap` cases of each kind of edit.
pub fn lazy_run(git: &mut Git, commits: &[String], cap: usize) -> LazyReport {
    let mut rep = LazyReport {
        commits: commits.len(),
        ..Default::default()
    };
    for c in commits {
        for f in git.changed(c).iter().filter(|f| f.status == 'M') {
            let (Some(old), Some(new)) = (&f.old, &f.new) else {
                continue;
            };
            let origin = format!("{}:{}", &c[..9], f.path);
            file(&mut rep, &origin, &f.path, old, new, cap);
        }
    }
    rep
}

fn pct(a: usize, n: usize) -> String {
    if n == 0 {
        "-".into()
    } else {
        format!("{:.1} %", 100.0 * a as f64 / n as f64)
    }
}

/// The figures as a Markdown table.
pub fn print_lazy(r: &LazyReport) {
    println!("lazy variants of the real edits of {} commits", r.commits);
    println!("| kind | cases | expanded as intended | refused | wrong |");
    println!("|---|---|---|---|---|");
    for (k, t) in &r.kinds {
        let why: Vec<String> = t.why.iter().map(|(w, n)| format!("{w} {n}")).collect();
        println!(
            "| {k} | {} | {} ({}) | {} ({}) | {} |",
            t.n,
            t.exact,
            pct(t.exact, t.n),
            t.refused,
            why.join(", "),
            t.wrong
        );
    }
    let (n, re, ex) = r.real_edits;
    println!(
        "| real edits (no marker added) | {n} | false expansions: {ex} | false refusals: {re} | |"
    );
    let (n, re, ex) = r.real_files;
    println!("| real whole files (no marker added) | {n} | false expansions: {ex} | false refusals: {re} | |");
    for (k, t) in &r.kinds {
        for e in &t.examples {
            println!("  {k} wrong: {e}");
        }
    }
    for e in &r.real_examples {
        println!("  real: {e}");
    }
}

/// The figures as JSON.
pub fn lazy_json(r: &LazyReport) -> Value {
    let kinds: serde_json::Map<String, Value> = r
        .kinds
        .iter()
        .map(|(k, t)| {
            (
                k.to_string(),
                json!({"cases": t.n, "expanded": t.exact, "refused": t.refused, "wrong": t.wrong}),
            )
        })
        .collect();
    json!({
        "commits": r.commits,
        "kinds": kinds,
        "real_edits": {"cases": r.real_edits.0, "refused": r.real_edits.1, "expanded": r.real_edits.2},
        "real_files": {"cases": r.real_files.0, "refused": r.real_files.1, "expanded": r.real_files.2},
    })
}

/// What every lazy replay must show: nothing written wrong, no false
/// alarm. (A marker beside a deletion is not scored: its lazy text is the
/// same as that of a marker that keeps the deleted lines.)
pub fn check_lazy(r: &LazyReport) {
    for (k, t) in r.kinds.iter().filter(|(k, _)| **k != "beside a deletion") {
        assert_eq!(t.wrong, 0, "{k}: {:?}", t.examples);
    }
    assert_eq!(r.real_edits.1 + r.real_edits.2, 0, "{:?}", r.real_examples);
    assert_eq!(r.real_files.1 + r.real_files.2, 0, "{:?}", r.real_examples);
}
