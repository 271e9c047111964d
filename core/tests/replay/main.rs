//! The replay of this repository's own history (`npm run bench -- replay`
//! runs the whole of it; a slice runs with the test suite).
//!
//! Every hunk of every commit that changed a text file becomes the edit an
//! agent would send (the least context that makes it unique), and each
//! commit is also replayed as a Codex patch and as its `git diff`: every
//! real edit must land, in every format, exactly as committed. Then each
//! mistake agents make (see `mistakes.rs`) is applied to a sample of those
//! edits, and the answers are scored: the exact call must refuse; its
//! `closest_match` must point at the region the block was meant for and
//! give its exact current text; a tolerant call (`match` with every
//! tolerance) must write the intended file or nothing; `already_applied`
//! must never be claimed for an edit that did not land.
//!
//! The history is this repository's, or another one's (`PFT_REPLAY_REPO`),
//! and it can be replayed with mixed line endings (`eol.rs`; a slice of
//! that runs with the suite too).
//!
//! Without the history (a shallow clone, no `git`) the replay is skipped.

mod edits;
mod eol;
mod git;
mod lazy;
mod mistakes;
mod score;
mod syntax;

use std::collections::BTreeMap;

use serde_json::{json, Value};

use edits::{agent_edits, AgentEdit};
use git::Git;
use mistakes::{make, xorshift, Kind};
use score::{replay_edits, replay_patches, score, Base, Landed, Tally};

/// What to replay.
struct Config {
    /// The last commit replayed (default `HEAD`).
    until: Option<String>,
    /// Commits replayed (oldest first), at most this many; `None`: all.
    commits: Option<usize>,
    /// Samples of each mistake.
    per_kind: usize,
    seed: u64,
    /// Chosen files given mixed line endings, and the shapes of
    /// [`eol::shapes`] added (see `eol.rs`).
    mixed: bool,
    /// Only the kinds of mistake whose names contain one of these
    /// (`PFT_REPLAY_KINDS`, comma-separated); empty: all. The samples of a
    /// kind are the same whichever others run.
    kinds: Vec<String>,
}

struct Report {
    commits: usize,
    base: Base,
    kinds: BTreeMap<Kind, Tally>,
}

fn run(git: &mut Git, cfg: &Config) -> Report {
    let mut commits = git.commits(cfg.until.as_deref());
    if let Some(n) = cfg.commits {
        commits.truncate(n);
    }
    let mut base = Base::default();
    let mut pool: Vec<AgentEdit> = Vec::new();
    let ws = tempfile::tempdir().unwrap();
    let mut seen = 0;
    for c in &commits {
        let mut files = git.changed(c);
        let mut shapes = Vec::new();
        if cfg.mixed {
            files = eol::transform(&files);
            for f in files.iter().filter(|f| f.status == 'M') {
                shapes.extend(eol::shapes(f, seen));
                seen += 1;
            }
        }
        for f in files.iter().chain(&shapes).filter(|f| f.status == 'M') {
            replay_file(ws.path(), &c[..9], f, &mut base, &mut pool);
        }
        let refs: Vec<&git::Changed> = files.iter().collect();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        let diff = if paths.is_empty() {
            String::new()
        } else if cfg.mixed {
            eol::diff(&refs)
        } else {
            git.diff(c, &paths)
        };
        replay_patches(c, &refs, &diff, &mut base);
        for f in &shapes {
            replay_patches(
                &format!("{c} ({})", f.path),
                &[f],
                &eol::diff(&[f]),
                &mut base,
            );
        }
    }
    // The same pseudo-random order of edits for every kind of mistake.
    let mut seed = cfg.seed;
    let mut order: Vec<usize> = (0..pool.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, (xorshift(&mut seed) as usize) % (i + 1));
    }
    let mut kinds = BTreeMap::new();
    let wanted =
        |k: Kind| cfg.kinds.is_empty() || cfg.kinds.iter().any(|w| k.name().contains(w.as_str()));
    for kind in Kind::ALL.into_iter().filter(|&k| wanted(k)) {
        let mut t = Tally::default();
        let mut rng = cfg.seed ^ kind as u64;
        for &i in &order {
            if t.n >= cfg.per_kind {
                break;
            }
            if let Some(case) = make(kind, &pool[i], &mut rng) {
                score(ws.path(), &case, &mut t);
            }
        }
        kinds.insert(kind, t);
    }
    Report {
        commits: commits.len(),
        base,
        kinds,
    }
}

/// One file's change as agent edits: each must land alone and all in one
/// call (when every hunk has a unique block); the edits join the pool the
/// mistakes are made from.
fn replay_file(
    ws: &std::path::Path,
    commit: &str,
    f: &git::Changed,
    base: &mut Base,
    pool: &mut Vec<AgentEdit>,
) {
    let origin = format!("{commit}:{}", f.path);
    let list = agent_edits(
        f.old.as_deref().unwrap_or(""),
        f.new.as_deref().unwrap_or(""),
        &origin,
    );
    base.hunks += list.len();
    base.not_unique += list.iter().filter(|e| e.is_none()).count();
    if list.iter().all(Option::is_some) && !list.is_empty() {
        let list: Vec<AgentEdit> = list.into_iter().flatten().collect();
        replay_edits(ws, f, &list, base);
        pool.extend(list);
    } else {
        pool.extend(list.into_iter().flatten());
    }
}

fn pct(a: usize, n: usize) -> String {
    if n == 0 {
        "-".into()
    } else {
        format!("{:.1} %", 100.0 * a as f64 / n as f64)
    }
}

fn print(r: &Report) {
    println!(
        "replay of {} commits: {} hunks ({} without a unique block of at most 20 lines of context)",
        r.commits, r.base.hunks, r.base.not_unique
    );
    println!("| format | landed | of |");
    println!("|---|---|---|");
    for (name, l) in [
        ("patchFile, one edit a call", &r.base.patch_file),
        ("patchFile, edits[] (one call a file)", &r.base.edits),
        ("applyPatch, Codex patch (one a commit)", &r.base.codex),
        ("applyPatch, git diff (one a commit)", &r.base.unified),
    ] {
        println!("| {name} | {} | {} |", l.landed, l.total);
    }
    println!();
    println!("| mistake | cases | exact refused | region found | exact text | tolerant ok | equivalent | refused | wrong | false already_applied |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut all = Tally::default();
    for (k, t) in &r.kinds {
        let tol = |s: &str| t.tolerant.get(s).copied().unwrap_or(0);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            k.name(),
            t.n,
            pct(t.exact_refused, t.n),
            pct(t.region_found, t.n),
            pct(t.exact_text, t.n),
            tol("ok"),
            tol("equivalent"),
            tol("refused"),
            tol("wrong"),
            t.false_applied
        );
        all.n += t.n;
        all.exact_refused += t.exact_refused;
        all.region_found += t.region_found;
        all.exact_text += t.exact_text;
        all.false_applied += t.false_applied;
        for (s, v) in &t.tolerant {
            *all.tolerant.entry(s).or_default() += v;
        }
    }
    let tol = |s: &str| all.tolerant.get(s).copied().unwrap_or(0);
    println!(
        "| all | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        all.n,
        pct(all.exact_refused, all.n),
        pct(all.region_found, all.n),
        pct(all.exact_text, all.n),
        tol("ok"),
        tol("equivalent"),
        tol("refused"),
        tol("wrong"),
        all.false_applied
    );
    for (name, l) in [
        ("patchFile", &r.base.patch_file),
        ("edits[]", &r.base.edits),
        ("codex", &r.base.codex),
        ("unified", &r.base.unified),
    ] {
        for f in &l.failures {
            println!(
                "  {name} failed: {}",
                f.chars().take(400).collect::<String>()
            );
        }
    }
    for (k, t) in &r.kinds {
        for e in &t.examples {
            println!("  {}: {e}", k.name());
        }
    }
}

fn json(r: &Report) -> Value {
    let landed = |l: &Landed| json!({"landed": l.landed, "total": l.total});
    json!({
        "commits": r.commits,
        "hunks": r.base.hunks,
        "not_unique": r.base.not_unique,
        "formats": {
            "patch_file": landed(&r.base.patch_file),
            "edits": landed(&r.base.edits),
            "codex": landed(&r.base.codex),
            "unified_diff": landed(&r.base.unified),
        },
        "mistakes": r.kinds.iter().map(|(k, t)| json!({
            "kind": k.name(), "cases": t.n, "exact_refused": t.exact_refused, "region_found": t.region_found,
            "exact_text": t.exact_text, "tolerant": t.tolerant, "false_already_applied": t.false_applied,
            "diagnosis_incomplete": t.incomplete,
        })).collect::<Vec<_>>(),
    })
}

/// The assertions every replay must pass: every real edit lands in every
/// format, no exact call writes a mistaken block, no tolerant call writes
/// anything but the intended file, and `already_applied` is never claimed
/// for an edit that did not land.
fn check(r: &Report) {
    for (name, l) in [
        ("patchFile", &r.base.patch_file),
        ("edits[]", &r.base.edits),
        ("codex", &r.base.codex),
        ("unified diff", &r.base.unified),
    ] {
        assert_eq!(l.landed, l.total, "{name}: {:?}", l.failures);
    }
    for (k, t) in &r.kinds {
        assert_eq!(
            t.exact_refused,
            t.n,
            "{}: an exact call wrote: {:?}",
            k.name(),
            t.examples
        );
        assert_eq!(
            t.tolerant.get("wrong").copied().unwrap_or(0),
            0,
            "{}: {:?}",
            k.name(),
            t.examples
        );
        assert_eq!(t.false_applied, 0, "{}: {:?}", k.name(), t.examples);
    }
}

#[test]
fn replay_slice() {
    let Some(mut git) = Git::open() else {
        println!("skipped: the repository's history is not available (shallow clone, or no git)");
        return;
    };
    let r = run(
        &mut git,
        &Config {
            until: None,
            commits: Some(24),
            per_kind: 8,
            seed: 0x5eed_2020,
            mixed: false,
            kinds: Vec::new(),
        },
    );
    print(&r);
    check(&r);
    assert!(
        r.base.patch_file.total >= 50,
        "the slice replays real edits"
    );
    assert!(
        r.kinds.values().all(|t| t.n > 0),
        "every kind of mistake is sampled"
    );
}

/// The same slice with mixed line endings (see `eol.rs`): real commits on
/// files that mix CRLF and LF, every diff with its own line bytes, a
/// CRLF -> LF conversion and a re-indentation among them.
#[test]
fn replay_mixed_slice() {
    let Some(mut git) = Git::open() else {
        println!("skipped: the repository's history is not available (shallow clone, or no git)");
        return;
    };
    let r = run(
        &mut git,
        &Config {
            until: None,
            commits: Some(24),
            per_kind: 8,
            seed: 0x5eed_2021,
            mixed: true,
            kinds: Vec::new(),
        },
    );
    print(&r);
    check(&r);
    assert!(
        r.base.unified.total >= 24 && r.base.patch_file.total >= 50,
        "the slice replays real edits and diffs"
    );
}

/// The whole history: `cargo test --release --test replay -- --ignored
/// --nocapture` (or `npm run bench -- replay`). `PFT_REPLAY_PER_KIND` sets
/// the samples of each mistake (default 200), `PFT_REPLAY_UNTIL` the last
/// commit replayed (default `HEAD`; name one to get figures that do not
/// move as the history grows), `PFT_REPLAY_COMMITS` how many commits
/// (oldest first), `PFT_REPLAY_OUT` a file for the figures as JSON,
/// `PFT_REPLAY_REPO` another repository to replay (a clone or a git
/// directory), `PFT_REPLAY_EOL=mixed` the mixed line-endings mode
/// (`eol.rs`), `PFT_REPLAY_KINDS` the kinds of mistake scored (names or
/// parts of names, comma-separated, e.g. `stale,elided`), `PFT_REPLAY_DUMP`
/// a directory each failing case is written to.
#[test]
#[ignore]
fn replay_full() {
    let Some(mut git) = Git::open() else {
        println!("skipped: the repository's history is not available (shallow clone, or no git)");
        return;
    };
    let per_kind = std::env::var("PFT_REPLAY_PER_KIND")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let started = std::time::Instant::now();
    let r = run(
        &mut git,
        &Config {
            until: std::env::var("PFT_REPLAY_UNTIL").ok(),
            commits: std::env::var("PFT_REPLAY_COMMITS")
                .ok()
                .and_then(|v| v.parse().ok()),
            per_kind,
            seed: 0x5eed_2020,
            mixed: std::env::var("PFT_REPLAY_EOL").is_ok_and(|v| v == "mixed"),
            kinds: std::env::var("PFT_REPLAY_KINDS")
                .map(|v| {
                    v.split(',')
                        .filter(|k| !k.is_empty())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
        },
    );
    print(&r);
    println!("({:.1} s)", started.elapsed().as_secs_f64());
    if let Ok(out) = std::env::var("PFT_REPLAY_OUT") {
        std::fs::write(out, serde_json::to_string_pretty(&json(&r)).unwrap()).unwrap();
    }
    check(&r);
}

/// The lazy variants of the real edits of a slice of the history (see
/// `lazy.rs`): nothing written wrong, no real edit refused.
#[test]
fn lazy_slice() {
    let Some(mut git) = Git::open() else {
        println!("skipped: the repository's history is not available (shallow clone, or no git)");
        return;
    };
    let mut commits = git.commits(None);
    commits.truncate(30);
    let r = lazy::lazy_run(&mut git, &commits, 200);
    lazy::print_lazy(&r);
    lazy::check_lazy(&r);
    assert!(
        r.kinds.get("bounded").is_some_and(|t| t.n > 20),
        "lazy edits are made"
    );
}

/// The lazy variants of every real edit (`npm run bench -- lazy`):
/// `PFT_LAZY_CAP` cases of each kind at most (default 5000),
/// `PFT_REPLAY_UNTIL` the last commit, `PFT_REPLAY_OUT` a JSON file.
#[test]
#[ignore]
fn lazy_full() {
    let Some(mut git) = Git::open() else {
        println!("skipped: the repository's history is not available (shallow clone, or no git)");
        return;
    };
    let cap = std::env::var("PFT_LAZY_CAP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5000);
    let commits = git.commits(std::env::var("PFT_REPLAY_UNTIL").ok().as_deref());
    let started = std::time::Instant::now();
    let r = lazy::lazy_run(&mut git, &commits, cap);
    lazy::print_lazy(&r);
    println!("({:.1} s)", started.elapsed().as_secs_f64());
    if let Ok(out) = std::env::var("PFT_REPLAY_OUT") {
        std::fs::write(
            out,
            serde_json::to_string_pretty(&lazy::lazy_json(&r)).unwrap(),
        )
        .unwrap();
    }
    lazy::check_lazy(&r);
}

/// The syntax guard on the real edits of this repository's recent history
/// (see `syntax.rs`): no real final state reported; the intermediate states
/// and the injected breakage measured.
#[test]
fn syntax_slice() {
    let Some(mut git) = Git::open() else {
        println!("skipped: the repository's history is not available (shallow clone, or no git)");
        return;
    };
    let commits = git.commits(None);
    let commits = &commits[commits.len().saturating_sub(20)..];
    let r = syntax::syntax_run(&mut git, commits, 100);
    syntax::print_syntax(&r);
    assert!(
        r.false_reports.is_empty(),
        "false reports: {:?}",
        r.false_reports
    );
    assert!(
        r.langs.values().map(|l| l.files).sum::<usize>() > 20,
        "files are checked"
    );
    assert!(
        r.injected.values().map(|t| t.reported).sum::<usize>() > 20,
        "breakage is injected and reported"
    );
}

/// The syntax guard on every file change of the history (`npm run bench --
/// syntax`): `PFT_SYNTAX_CAP` injections of each language and kind at most
/// (default 2000), `PFT_REPLAY_UNTIL` the last commit (default `HEAD`),
/// `PFT_REPLAY_COMMITS` how many commits up to it (the newest; default
/// all), `PFT_REPLAY_REPO` another repository, `PFT_REPLAY_OUT` a JSON
/// file. Prints every false report; asserts nothing (a commit can truly
/// leave a syntax error: each is judged by reading it).
#[test]
#[ignore]
fn syntax_full() {
    let Some(mut git) = Git::open() else {
        println!("skipped: the repository's history is not available (shallow clone, or no git)");
        return;
    };
    let cap = std::env::var("PFT_SYNTAX_CAP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let commits = git.commits(std::env::var("PFT_REPLAY_UNTIL").ok().as_deref());
    let n = std::env::var("PFT_REPLAY_COMMITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(commits.len());
    let commits = &commits[commits.len().saturating_sub(n)..];
    let started = std::time::Instant::now();
    let r = syntax::syntax_run(&mut git, commits, cap);
    syntax::print_syntax(&r);
    println!("({:.1} s)", started.elapsed().as_secs_f64());
    if let Ok(out) = std::env::var("PFT_REPLAY_OUT") {
        std::fs::write(
            out,
            serde_json::to_string_pretty(&syntax::syntax_json(&r)).unwrap(),
        )
        .unwrap();
    }
}
