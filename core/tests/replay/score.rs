//! Running the replay's calls through the public entry points and scoring
//! the answers: whether every real edit lands in every format, and for each
//! mistake what the exact call and the tolerant call (`match` with every
//! tolerance) did.

use std::collections::BTreeMap;
use std::path::Path;

use patch_file_core::api;
use serde_json::{json, Value};

use super::edits::{codex_section, AgentEdit};
use super::git::Changed;
use super::mistakes::{Case, Kind};

pub fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root, "durable": false, "journal": false })
}

/// [`opts`] for the real edits: with `PFT_REPLAY_MATCH` (tolerances,
/// comma-separated) as their `defaultMatch`, as the MCP server and the SDK
/// adapters send them (`line_endings`).
fn base_opts(root: &Path) -> Value {
    let mut o = opts(root);
    if let Ok(m) = std::env::var("PFT_REPLAY_MATCH") {
        o["defaultMatch"] = json!(m.split(',').filter(|t| !t.is_empty()).collect::<Vec<_>>());
    }
    o
}

/// Under `line_endings` (`PFT_REPLAY_MATCH`), what a real edit leaves when
/// it would mix line endings: a file that ends its lines one way
/// throughout, a line break of it kept outside the search's one
/// occurrence, takes the replacement's breaks of the other kind as its own
/// (a commit that added CRLF lines to an LF file, which the engine keeps
/// LF). `None`: the edit as committed.
fn one_kind(before: &str, search: &str, replace: &str) -> Option<String> {
    let tolerant = std::env::var("PFT_REPLAY_MATCH").is_ok_and(|m| m.contains("line_endings"));
    let at = before.find(search)?;
    let (head, tail) = (&before[..at], &before[at + search.len()..]);
    let outside = head.contains('\n') || head.ends_with('\r') || tail.contains('\n');
    let eol = one_ending(before).filter(|_| tolerant && outside && !before.contains("\r\r"))?;
    let (r_crlf, r_lf) = (
        replace.matches("\r\n").count(),
        replace.matches('\n').count(),
    );
    let other = if eol == "\r\n" {
        r_lf > r_crlf
    } else {
        r_crlf > 0
    };
    if !other {
        return None;
    }
    // Every break the replacement's as LF, then as the file's; an LF first
    // after the file's CR completes that CR.
    let lf = replace.replace("\r\n", "\n");
    let converted = match eol {
        "\r\n" if head.ends_with('\r') && replace.starts_with('\n') => {
            format!("\n{}", lf[1..].replace('\n', "\r\n"))
        }
        "\r\n" => lf.replace('\n', "\r\n"),
        _ => lf,
    };
    Some(format!("{head}{converted}{tail}"))
}

/// The line break `text` uses throughout (`\r\n` or `\n`), if it has
/// line breaks of one kind only.
fn one_ending(text: &str) -> Option<&'static str> {
    let (crlf, lf) = (text.matches("\r\n").count(), text.matches('\n').count());
    match (lf, crlf) {
        (0, _) => None,
        (lf, crlf) if crlf == lf => Some("\r\n"),
        (_, 0) => Some("\n"),
        _ => None,
    }
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(p, text).unwrap();
}

fn read(root: &Path, rel: &str) -> Option<String> {
    std::fs::read(root.join(rel))
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// How many changes landed in one format, and the first failures.
#[derive(Debug, Default, Clone)]
pub struct Landed {
    pub total: usize,
    pub landed: usize,
    pub failures: Vec<String>,
}

impl Landed {
    fn add(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.total += 1;
        if ok {
            self.landed += 1;
        } else if self.failures.len() < 8 {
            self.failures.push(what());
        }
    }
}

/// The base edits of a commit through every format.
#[derive(Debug, Default, Clone)]
pub struct Base {
    /// Hunks turned into agent edits, and hunks no context up to the limit
    /// makes unique (left out of `patchFile` and `edits[]`).
    pub hunks: usize,
    pub not_unique: usize,
    pub patch_file: Landed,
    pub edits: Landed,
    pub codex: Landed,
    pub unified: Landed,
}

/// `patchFile` one edit at a time, then all of them in one `edits[]`
/// call: each must leave the file as the commit did.
pub fn replay_edits(root: &Path, c: &Changed, edits: &[AgentEdit], base: &mut Base) {
    let (old, new) = (
        c.old.as_deref().unwrap_or(""),
        c.new.as_deref().unwrap_or(""),
    );
    write(root, "f.txt", old);
    for e in edits {
        let before = read(root, "f.txt").unwrap_or_default();
        let want = one_kind(&before, &e.search, &e.replace).unwrap_or_else(|| e.after.clone());
        let r = api::patch_file(
            &json!({"file_path": "f.txt", "search": e.search, "replace": e.replace}),
            Some(&base_opts(root)),
        );
        let got = read(root, "f.txt").unwrap_or_default();
        let ok = r["ok"] == true && got == want;
        base.patch_file.add(ok, || {
            let at = got
                .bytes()
                .zip(want.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            let near = |t: &str| {
                let b = t.as_bytes();
                let from = at.saturating_sub(40).min(b.len());
                format!(
                    "{:?}",
                    String::from_utf8_lossy(&b[from..(at + 40).min(b.len())])
                )
            };
            let (g, w) = (near(&got), near(&want));
            format!(
                "{}: {} (at {at}: got {g}, want {w})",
                e.origin, r["message"]
            )
        });
        // The next edit is made against the file as the commit left it.
        write(root, "f.txt", &e.after);
    }
    write(root, "f.txt", old);
    let list: Vec<Value> = edits
        .iter()
        .map(|e| json!({"search": e.search, "replace": e.replace}))
        .collect();
    let r = api::patch_file(
        &json!({"file_path": "f.txt", "edits": list}),
        Some(&base_opts(root)),
    );
    // In turn, each edit's replacement as the file takes it. A search that
    // holds lines an earlier edit of the call wrote with the commit's
    // endings may no longer be found once when that edit took the file's
    // (under `line_endings`): then the call is refused, nothing written.
    let mut want = Some(old.to_string());
    for e in edits {
        want = want
            .filter(|w| w.matches(e.search.as_str()).count() == 1)
            .map(|w| {
                one_kind(&w, &e.search, &e.replace)
                    .unwrap_or_else(|| w.replacen(&e.search, &e.replace, 1))
            });
    }
    let ok = match &want {
        Some(w) => r["ok"] == true && read(root, "f.txt").as_deref() == Some(w),
        None => r["ok"] == false && read(root, "f.txt").as_deref() == Some(old),
    };
    if !ok {
        if let Ok(dir) = std::env::var("PFT_REPLAY_DUMP") {
            let d = Path::new(&dir).join(c.path.replace('/', "_"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("old"), old).unwrap();
            std::fs::write(d.join("new"), new).unwrap();
            std::fs::write(d.join("got"), read(root, "f.txt").unwrap_or_default()).unwrap();
            std::fs::write(
                d.join("edits.json"),
                serde_json::to_string_pretty(&json!({"file_path": "f.txt", "edits": list}))
                    .unwrap(),
            )
            .unwrap();
        }
    }
    base.edits
        .add(ok, || format!("{}: {}", c.path, r["message"]));
}

/// A commit's text files in a fresh workspace as they were before it.
fn workspace(files: &[&Changed]) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    for c in files {
        if let Some(old) = &c.old {
            write(t.path(), &c.path, old);
        }
    }
    t
}

/// Whether every file of the commit is as the commit left it.
fn as_committed(root: &Path, files: &[&Changed]) -> Result<(), String> {
    for c in files {
        let now = read(root, &c.path);
        if now.as_deref() != c.new.as_deref() {
            return Err(format!("{} differs after the patch", c.path));
        }
    }
    Ok(())
}

/// The commit as one Codex patch and as its `git diff`, each applied to
/// the files as they were: every file must end as committed.
pub fn replay_patches(commit: &str, files: &[&Changed], diff: &str, base: &mut Base) {
    let mut codex = String::from("*** Begin Patch\n");
    let mut expressible = true;
    for c in files {
        match (c.status, &c.old, &c.new) {
            ('M', Some(o), Some(n)) => match codex_section(&c.path, o, n) {
                Some(s) => codex.push_str(&s),
                None => expressible = false,
            },
            ('A', _, Some(n)) if n.ends_with('\n') || n.is_empty() => {
                codex.push_str(&format!("*** Add File: {}\n", c.path));
                for l in n.split_inclusive('\n') {
                    codex.push_str(&format!("+{l}"));
                }
            }
            ('D', Some(_), _) => codex.push_str(&format!("*** Delete File: {}\n", c.path)),
            _ => expressible = false,
        }
    }
    codex.push_str("*** End Patch\n");
    if expressible && files.iter().any(|c| c.status == 'M') {
        let t = workspace(files);
        let r = api::apply_patch(&json!(codex), Some(&opts(t.path())));
        let ok = r["ok"] == true && as_committed(t.path(), files).is_ok();
        if !ok {
            dump_patch(&format!("codex-{commit}"), &codex, &r, t.path(), files);
        }
        base.codex.add(ok, || format!("{commit}: {}", r["message"]));
    }
    if !diff.is_empty() {
        let t = workspace(files);
        let r = api::apply_patch(&json!(diff), Some(&opts(t.path())));
        let check = as_committed(t.path(), files);
        let ok = r["ok"] == true && check.is_ok();
        if !ok {
            dump_patch(&format!("unified-{commit}"), diff, &r, t.path(), files);
        }
        base.unified.add(ok, || {
            format!("{commit}: {} {:?}", r["message"], check.err())
        });
    }
}

/// A patch that failed, its answer and each file before, wanted and got,
/// under `PFT_REPLAY_DUMP/<name>/`.
fn dump_patch(name: &str, patch: &str, r: &Value, root: &Path, files: &[&Changed]) {
    let Ok(dir) = std::env::var("PFT_REPLAY_DUMP") else {
        return;
    };
    let d = Path::new(&dir).join(name);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("patch"), patch).unwrap();
    std::fs::write(d.join("result.json"), r.to_string()).unwrap();
    for c in files {
        let name = c.path.replace('/', "_");
        let got = read(root, &c.path).unwrap_or_default();
        std::fs::write(
            d.join(format!("{name}.old")),
            c.old.as_deref().unwrap_or(""),
        )
        .unwrap();
        std::fs::write(
            d.join(format!("{name}.new")),
            c.new.as_deref().unwrap_or(""),
        )
        .unwrap();
        std::fs::write(d.join(format!("{name}.got")), got).unwrap();
    }
}

/// The first line where `got` and `want` differ, for reports.
fn first_difference(got: &str, want: &str) -> String {
    let (g, w): (Vec<&str>, Vec<&str>) = (
        got.split_inclusive('\n').collect(),
        want.split_inclusive('\n').collect(),
    );
    let k = g.iter().zip(&w).take_while(|(a, b)| a == b).count();
    format!(
        "line {}: wrote {:?}, want {:?}",
        k + 1,
        g[k..(k + 3).min(g.len())].concat(),
        w[k..(k + 3).min(w.len())].concat()
    )
}

/// What a tolerant call did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tolerant {
    /// Wrote exactly the intended file.
    Ok,
    /// Wrote the intended file but for the mistake itself on lines the
    /// caller wrote (its own straight quotes, no trailing whitespace).
    Equivalent,
    Refused,
    /// Wrote anything else, or wrote where nothing should be.
    Wrong,
}

/// The results of one kind of mistake.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub n: usize,
    pub exact_refused: usize,
    pub region_found: usize,
    pub exact_text: usize,
    pub tolerant: BTreeMap<&'static str, usize>,
    pub false_applied: usize,
    pub incomplete: usize,
    pub examples: Vec<String>,
}

impl Tally {
    /// Keeps an example of a miss (all of the serious ones, a few others:
    /// `PFT_REPLAY_EXAMPLES` of them, default 6).
    fn note(&mut self, what: &str, c: &Case, r: &Value) {
        let serious = what.contains("WRONG") || what.contains("false") || what.contains("wrote");
        if self.examples.len() < examples_kept() || serious {
            let mut r = r.clone();
            if let Some(m) = r.as_object_mut() {
                for k in [
                    "file_path",
                    "sha256",
                    "sha256_before",
                    "before_bytes",
                    "after_bytes",
                    "before_chars",
                    "after_chars",
                ] {
                    m.remove(k);
                }
            }
            self.examples.push(format!(
                "{what} [{}] search={:?} region={:?} want={:?}\n      -> {}",
                c.origin,
                c.search.chars().take(300).collect::<String>(),
                c.region,
                c.region_text.chars().take(300).collect::<String>(),
                r.to_string().chars().take(1200).collect::<String>()
            ));
        }
    }
}

/// Whether `after` differs from `want` only on lines the caller wrote (new
/// or changed lines of its replacement, not its context lines), and there
/// only in the mistake's own kind.
fn equivalent(c: &Case, after: &str, want: &str) -> bool {
    let (a, w): (Vec<&str>, Vec<&str>) = (
        after.split_inclusive('\n').collect(),
        want.split_inclusive('\n').collect(),
    );
    if a.len() != w.len() {
        return false;
    }
    let same = |x: &str, y: &str| -> bool {
        match c.kind {
            Kind::TrailingWhitespace => {
                x.trim_end() == y.trim_end() && x.ends_with('\n') == y.ends_with('\n')
            }
            Kind::Quotes => {
                let fold = |s: &str| {
                    s.replace(['“', '”'], "\"")
                        .replace('’', "'")
                        .replace('—', "--")
                };
                fold(x) == fold(y)
            }
            Kind::MixedEndings => {
                x.trim_end_matches(['\r', '\n']) == y.trim_end_matches(['\r', '\n'])
            }
            _ => false,
        }
    };
    let callers = |k: usize| (c.written.0..=c.written.1).contains(&k) && !c.context.contains(&k);
    a.iter()
        .zip(&w)
        .enumerate()
        .all(|(k, (x, y))| x == y || (callers(k + 1) && same(x, y)))
}

fn tolerant_outcome(c: &Case, r: &Value, after: &str) -> Tolerant {
    if after == c.file {
        return if r["ok"] == true && c.intended.as_deref() != Some(after) {
            Tolerant::Wrong
        } else if r["ok"] == true {
            Tolerant::Ok
        } else {
            Tolerant::Refused
        };
    }
    match &c.intended {
        Some(want) if want == after => Tolerant::Ok,
        Some(want) if equivalent(c, after, want) || endings_taken(c, after, want) => {
            Tolerant::Equivalent
        }
        _ => Tolerant::Wrong,
    }
}

/// Whether `after` is `want` but for lines the caller wrote with line
/// breaks of the other kind than the file's, which (under `line_endings`,
/// part of every tolerant call) took the file's: a file that ends its
/// lines one way throughout stays so.
fn endings_taken(c: &Case, after: &str, want: &str) -> bool {
    let Some(eol) = one_ending(&c.file) else {
        return false;
    };
    let callers = |k: usize| (c.written.0..=c.written.1).contains(&k);
    let taken: String = want
        .split_inclusive('\n')
        .enumerate()
        .map(|(k, l)| {
            match callers(k + 1) && l.ends_with('\n') && l.ends_with("\r\n") != (eol == "\r\n") {
                true => format!("{}{eol}", l.trim_end_matches(['\r', '\n'])),
                false => l.to_string(),
            }
        })
        .collect();
    taken != want && (taken == after || equivalent(c, after, &taken))
}

/// The region checks of an exact call's answer: (found, exact text).
fn region_checks(c: &Case, r: &Value) -> (bool, bool) {
    match c.kind {
        Kind::AlreadyApplied => {
            let at = &r["applied_at"];
            let found = r["already_applied"] == true
                && at["line_number"] == c.region.0
                && at["end_line"] == c.region.1;
            (
                found,
                found && r["closest_match"]["text"] == c.region_text.as_str(),
            )
        }
        Kind::TooLittleContext => {
            let found = r["match_lines"]
                .as_array()
                .is_some_and(|l| l.iter().any(|x| *x == c.region.0));
            let hint = r["unique_context_hint"]
                .as_array()
                .and_then(|hs| hs.iter().find(|h| h["match_line"] == c.region.0));
            let unique = hint
                .and_then(|h| h["search_block"].as_str())
                .is_some_and(|s| {
                    memchr::memmem::find_iter(c.file.as_bytes(), s.as_bytes()).count() == 1
                });
            (found, unique)
        }
        _ => {
            let m = &r["closest_match"];
            let (a, b) = (
                m["line_number"].as_u64().unwrap_or(0) as usize,
                m["end_line"].as_u64().unwrap_or(0) as usize,
            );
            let found = a > 0 && a <= c.region.1 && b >= c.region.0;
            (found, m["text"] == c.region_text.as_str())
        }
    }
}

const ALL: [&str; 4] = [
    "line_endings",
    "trailing_whitespace",
    "indentation",
    "unicode_punctuation",
];

/// Writes a case to `PFT_REPLAY_DUMP`, when set, to look into.
fn dump(c: &Case, what: &str) {
    if let Ok(dir) = std::env::var("PFT_REPLAY_DUMP") {
        let d = Path::new(&dir).join(format!(
            "{what}-{}-{:?}-{}",
            c.origin.replace(['/', ':'], "_"),
            c.kind,
            c.region.0
        ));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("file"), &c.file).unwrap();
        std::fs::write(d.join("search"), &c.search).unwrap();
        std::fs::write(d.join("replace"), &c.replace).unwrap();
        if let Some(want) = &c.intended {
            std::fs::write(d.join("intended"), want).unwrap();
        }
        std::fs::write(
            d.join("case.txt"),
            format!(
                "{:?} {}\nregion {:?}\n{}",
                c.kind, c.origin, c.region, c.region_text
            ),
        )
        .unwrap();
    }
}

/// Sends `c` exactly, then with every tolerance, and adds what happened to `t`.
pub fn score(root: &Path, c: &Case, t: &mut Tally) {
    t.n += 1;
    write(root, "f.txt", &c.file);
    let call = |m: Option<&[&str]>| {
        let mut input = json!({"file_path": "f.txt", "search": c.search, "replace": c.replace});
        if let Some(m) = m {
            input["match"] = json!(m);
        }
        api::patch_file(&input, Some(&opts(root)))
    };
    let r = call(None);
    let exact_after = read(root, "f.txt").unwrap_or_default();
    if r["ok"] == false && exact_after == c.file {
        t.exact_refused += 1;
    } else {
        t.note("exact call wrote", c, &r);
    }
    if r["diagnosis_incomplete"] == true {
        t.incomplete += 1;
    }
    let (found, text) = region_checks(c, &r);
    t.region_found += usize::from(found);
    t.exact_text += usize::from(text);
    if !found {
        t.note("region not found", c, &r);
    } else if !text {
        t.note("text not exact", c, &r);
    }
    let mut false_applied = c.kind != Kind::AlreadyApplied && r["already_applied"] == true;
    write(root, "f.txt", &c.file);
    let tr = call(Some(&ALL));
    let after = read(root, "f.txt").unwrap_or_default();
    let outcome = tolerant_outcome(c, &tr, &after);
    false_applied |= c.kind != Kind::AlreadyApplied && tr["already_applied"] == true;
    if false_applied {
        t.false_applied += 1;
        t.note("false already_applied", c, &r);
        dump(c, "false-applied");
    }
    let name = match outcome {
        Tolerant::Ok => "ok",
        Tolerant::Equivalent => "equivalent",
        Tolerant::Refused if c.kind.tolerable() => {
            t.note(&format!("tolerant refused ({})", tr["code"]), c, &tr);
            "refused"
        }
        Tolerant::Refused => "refused",
        Tolerant::Wrong => {
            dump(c, "wrong");
            t.note(
                &format!(
                    "tolerant WRONG: {}",
                    first_difference(&after, c.intended.as_deref().unwrap_or(&c.file))
                ),
                c,
                &tr,
            );
            "wrong"
        }
    };
    *t.tolerant.entry(name).or_default() += 1;
}

/// Examples of misses kept per kind (`PFT_REPLAY_EXAMPLES`, default 6).
fn examples_kept() -> usize {
    std::env::var("PFT_REPLAY_EXAMPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
}
