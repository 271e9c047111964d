//! The entry points: each takes the caller's JSON input and options, runs the
//! flow request → workspace → source → plan → commit, and returns the result
//! object as JSON (`ok: true` with figures, or `ok: false` with a stable
//! `code`, a `message` for the agent and the details that help a retry).
//!
//! Nothing here panics outward: every entry point is wrapped in
//! [`guarded`], which turns a panic into an `INTERNAL_ERROR` result. All
//! file-system work happens before any write is attempted, and writes go
//! through [`crate::io::commit`], so a failure anywhere leaves files untouched.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use crate::error::{ErrorCode, Failure};
use crate::input::request;
use crate::io::commit::{self, Original, WriteJob};
use crate::io::dir::Meta;
use crate::io::locks::FileLock;
use crate::io::workspace::{Intent, Resolved, Workspace};
use crate::matching::exact::{self as plan, EditFailure, Plan, TextKind};
use crate::model::{FileEdits, Options};
use crate::text::source::{self, Encoding, Source};
use crate::txn::diff;
use crate::txn::dry_run::{self, PlannedFile};

/// Temp files older than this, left by a crashed writer, are removed.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(15 * 60);

/// Runs `f`, turning a panic into an `INTERNAL_ERROR` result.
pub fn guarded(f: impl FnOnce() -> Value) -> Value {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        fail_value(
            &Failure::new(
                ErrorCode::INTERNAL_ERROR,
                format!("internal error ({what}); nothing was written"),
            ),
            None,
        )
    })
}

/// A failure as a result object.
pub fn fail_value(f: &Failure, file_path: Option<&str>) -> Value {
    let mut m = Map::new();
    m.insert("ok".into(), Value::Bool(false));
    m.insert("code".into(), json!(f.code.as_str()));
    m.insert("message".into(), json!(f.message));
    if let Some(p) = file_path {
        m.insert("file_path".into(), json!(p));
    }
    if let Some(n) = f.match_count {
        m.insert("match_count".into(), json!(n));
    }
    Value::Object(m)
}

fn cwd() -> std::io::Result<PathBuf> {
    std::env::current_dir()
}

/// A file's failure with its details, before it becomes JSON.
#[derive(Debug)]
struct FileFailure {
    failure: Failure,
    file_path: Option<String>,
    failed_edits: Vec<EditFailure>,
    /// The file had several edits: `failed_edits` is always listed.
    multi: bool,
    /// The file's current sha256 (`FILE_CHANGED`); boxed to keep results small.
    sha256: Option<Box<str>>,
}

impl From<Failure> for FileFailure {
    fn from(failure: Failure) -> Self {
        FileFailure {
            failure,
            file_path: None,
            failed_edits: Vec::new(),
            multi: false,
            sha256: None,
        }
    }
}

impl FileFailure {
    fn at(mut self, path: &str) -> Self {
        if self.file_path.is_none() {
            self.file_path = Some(path.to_string());
        }
        self
    }

    fn to_value(&self) -> Value {
        let mut v = fail_value(&self.failure, self.file_path.as_deref());
        let m = v.as_object_mut().expect("object");
        if let Some(s) = &self.sha256 {
            m.insert("sha256".into(), json!(s));
        }
        if self.multi || self.failed_edits.len() > 1 {
            m.insert(
                "failed_edits".into(),
                Value::Array(self.failed_edits.iter().map(edit_failure_value).collect()),
            );
        }
        if let Some(first) = self.failed_edits.first() {
            if !first.match_lines.is_empty() {
                m.insert("match_lines".into(), json!(first.match_lines));
            }
            if let Some(d) = &first.diagnosis {
                d.write_json(m);
            }
        }
        v
    }
}

fn edit_failure_value(f: &EditFailure) -> Value {
    let mut v = json!({ "index": f.index, "code": f.code.as_str(), "match_count": f.match_count, "message": f.message });
    if !f.match_lines.is_empty() {
        v["match_lines"] = json!(f.match_lines);
    }
    if let (Some(d), Some(m)) = (&f.diagnosis, v.as_object_mut()) {
        d.write_json(m);
    }
    v
}

/// How the edits of `fe` are planned: its `match` mode, failures diagnosed.
fn plan_options(fe: &FileEdits) -> plan::PlanOptions {
    plan::PlanOptions {
        mode: fe.match_mode,
        ..Default::default()
    }
}

/// The absolute path a user path names, for failures before resolution.
pub(crate) fn lexical_abs(root: &Path, user: &str) -> String {
    root.join(user).to_string_lossy().into_owned()
}

/// A resolved, locked-by-caller, read file.
struct Loaded {
    res: Resolved,
    src: Source,
    meta: Meta,
}

impl Loaded {
    fn abs(&self) -> String {
        self.res.abs_path.to_string_lossy().into_owned()
    }
}

/// Opens and reads the file `res` names (which must exist).
fn read_resolved(res: Resolved, opts: &Options, display: &str) -> Result<Loaded, Failure> {
    let (src, meta) = crate::io::source::read_existing(&res, opts, display)?;
    Ok(Loaded { res, src, meta })
}

fn text_kind(src: &Source) -> TextKind {
    if src.encoding() == Encoding::Bytes {
        TextKind::Bytes
    } else {
        TextKind::Utf8
    }
}

fn check_sha(l: &Loaded, expected: &Option<String>, display: &str) -> Result<String, FileFailure> {
    let sha = l.src.sha256();
    if let Some(e) = expected {
        if *e != sha {
            return Err(FileFailure {
                failure: Failure::new(
                    ErrorCode::FILE_CHANGED,
                    format!(
                        "`{display}` changed since it was read (its sha256 is no longer expected_sha256); nothing was \
                         written. Reread the file and retry with its current content and sha256"
                    ),
                ),
                file_path: Some(l.abs()),
                failed_edits: Vec::new(),
                multi: false,
                sha256: Some(sha.into()),
            });
        }
    }
    Ok(sha)
}

fn plan_failure(mut failures: Vec<EditFailure>, path: String, multi: bool) -> FileFailure {
    failures.sort_by_key(|f| f.index);
    let first = &failures[0];
    let message = if multi && failures.len() > 1 {
        format!(
            "{} of the edits failed, so nothing was written (all-or-nothing). First: {}",
            failures.len(),
            first.message
        )
    } else if multi {
        format!("{}; nothing was written (all-or-nothing)", first.message)
    } else {
        first.message.clone()
    };
    let failure = Failure {
        code: first.code,
        message,
        match_count: Some(first.match_count),
    };
    FileFailure {
        failure,
        file_path: Some(path),
        failed_edits: failures,
        multi,
        sha256: None,
    }
}

/// Figures of a planned edit of one file, for the success result.
struct Figures {
    value: Map<String, Value>,
}

fn figures(
    l: &Loaded,
    plan: &Plan<'_>,
    new_len: usize,
    sha_before: &str,
    sha_after: &str,
) -> Figures {
    let before_chars = l.src.utf16_len();
    let after_chars = (before_chars as isize + plan.utf16_delta).max(0) as usize;
    let mut m = Map::new();
    m.insert("ok".into(), Value::Bool(true));
    m.insert("file_path".into(), json!(l.abs()));
    m.insert("replacements".into(), json!(plan.replacements()));
    m.insert(
        "line_number".into(),
        json!(plan.edits.first().map(|e| e.line_number).unwrap_or(0)),
    );
    m.insert("before_chars".into(), json!(before_chars));
    m.insert("after_chars".into(), json!(after_chars));
    m.insert("before_bytes".into(), json!(l.src.raw().len()));
    m.insert("after_bytes".into(), json!(new_len));
    m.insert(
        "edits".into(),
        Value::Array(
            plan.edits
                .iter()
                .map(|e| json!({"line_number": e.line_number, "replacements": e.replacements}))
                .collect(),
        ),
    );
    plan.write_tolerance_json(&mut m);
    m.insert("sha256_before".into(), json!(sha_before));
    m.insert("sha256".into(), json!(sha_after));
    Figures { value: m }
}

/// Remembers directories recently swept for stale temp files, so that the
/// sweep (a directory listing) runs at most once per directory per interval.
fn sweep_stale(res: &Resolved) {
    static SWEPT: OnceLock<Mutex<HashMap<PathBuf, Instant>>> = OnceLock::new();
    let dir = res.dir.path().to_path_buf();
    {
        let mut m = SWEPT
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if m.get(&dir)
            .is_some_and(|t| now.duration_since(*t) < STALE_TEMP_AGE)
        {
            return;
        }
        if m.len() > 4096 {
            m.clear();
        }
        m.insert(dir, now);
    }
    commit::clean_stale_temps(&res.dir, STALE_TEMP_AGE);
}

/// Adds a successful commit's warnings (durability not confirmed) to its
/// result: the edit is in place, so it is still `ok: true`.
fn with_warnings(mut v: Value, done: commit::Committed) -> Value {
    if !done.warnings.is_empty() {
        v["warnings"] = json!(done.warnings);
    }
    v
}

fn commit_failure(e: commit::CommitError, paths: &[String]) -> FileFailure {
    let mut f = FileFailure::from(e.failure).at(&paths[e.index.min(paths.len() - 1)]);
    if !e.rollback_failed.is_empty() {
        f.failure.message.push_str(&format!(
            "; WARNING: {} already-replaced file(s) could not be restored: {}",
            e.rollback_failed.len(),
            e.rollback_failed
                .iter()
                .map(|&i| paths[i].as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    } else if !e.rolled_back.is_empty() {
        f.failure.message.push_str(&format!(
            "; {} file(s) already replaced were restored to their original bytes",
            e.rolled_back.len()
        ));
    }
    f
}

/// The diff a dry run shows. UTF-8 and byte-level files are diffed as the
/// bytes on disk, so a BOM stays part of the first line and `git apply`
/// matches the file exactly; UTF-16 files are diffed as their decoded text
/// (readable, but not applicable to the UTF-16 bytes by `git apply`).
fn preview_diff(rel: &str, old: Option<&Source>, new_text: &[u8], new_bytes: &[u8]) -> String {
    match old {
        None => diff::unified(rel, None, Some(new_bytes)),
        Some(s) if s.encoding().is_utf16() => diff::unified(rel, Some(s.text()), Some(new_text)),
        Some(s) => diff::unified(rel, Some(s.raw()), Some(new_bytes)),
    }
}

/// Keeps a dry run for `applyDryRun` and adds `dry_run`, `run_id` and
/// `expires_in` to `m`. Content too large for the cache gets `run_id: null`
/// and a `message` saying to apply by repeating the call without `dry_run`.
fn keep_dry_run(m: &mut Map<String, Value>, root: &Path, files: Vec<PlannedFile>, opts: &Options) {
    m.insert("dry_run".into(), Value::Bool(true));
    let entry = dry_run::Entry {
        root: root.to_path_buf(),
        files,
    };
    match dry_run::store(entry, Duration::from_secs(opts.dry_run_ttl_secs)) {
        Some(id) => {
            m.insert("run_id".into(), json!(id));
            m.insert("expires_in".into(), json!(opts.dry_run_ttl_secs));
        }
        None => {
            m.insert("run_id".into(), Value::Null);
            m.insert("expires_in".into(), json!(0));
            m.insert(
                "message".into(),
                json!(format!(
                    "the planned content is larger than the dry-run cache ({} bytes), so it was not kept for \
                     applyDryRun; to apply, repeat the call without dry_run",
                    dry_run::MAX_BYTES
                )),
            );
        }
    }
}

// ---------------------------------------------------------------------------
// patchFile

/// `patchFile`: edits one file.
pub fn patch_file(input: &Value, options: Option<&Value>) -> Value {
    guarded(|| {
        let opts = match request::options(options, cwd) {
            Ok(o) => o,
            Err(f) => return fail_value(&f, None),
        };
        let req = match request::patch_request(input) {
            Ok(r) => r,
            Err(f) => return fail_value(&f, None),
        };
        let ws = match Workspace::open(&opts.workspace_root) {
            Ok(w) => w,
            Err(f) => return fail_value(&f, None),
        };
        match patch_one(&ws, &req.file, &opts, req.dry_run) {
            Ok(v) => v,
            Err(f) => f
                .at(&lexical_abs(ws.root(), &req.file.file_path))
                .to_value(),
        }
    })
}

fn patch_one(
    ws: &Workspace,
    fe: &FileEdits,
    opts: &Options,
    dry_run: bool,
) -> Result<Value, FileFailure> {
    let display = fe.file_path.as_str();
    let res = ws.resolve(display, Intent::Existing)?;
    let _lock = FileLock::acquire(&res.abs_path);
    let l = read_resolved(res, opts, display).map_err(FileFailure::from)?;
    let l_abs = l.abs();
    // With expected_sha256 the precondition is checked before anything else;
    // without it the hash only serves a success result, so a failing plan
    // (not found, ambiguous) never pays for hashing the file.
    let checked = match fe.expected_sha256 {
        Some(_) => Some(check_sha(&l, &fe.expected_sha256, display)?),
        None => None,
    };
    let plan = plan::plan_with(
        l.src.text(),
        &fe.edits,
        text_kind(&l.src),
        &plan_options(fe),
    )
    .map_err(|f| plan_failure(f, l_abs.clone(), fe.edits.len() > 1))?;
    let pieces = plan.pieces(&fe.edits);
    let encoded = l.src.encode_pieces(&pieces);
    let slices = encoded.slices();
    let hashes = || source::sha256_pair(l.src.raw(), &slices, checked.is_none());

    if dry_run {
        let (before, sha_after) = hashes();
        let sha_before = checked.or(before).expect("hashed when not checked");
        let mut fig = figures(&l, &plan, encoded.len(), &sha_before, &sha_after);
        let new_bytes = encoded.to_vec();
        let d = preview_diff(&l.res.rel_path, Some(&l.src), &pieces.concat(), &new_bytes);
        fig.value.insert("diff".into(), json!(d));
        let planned = PlannedFile {
            rel_path: l.res.rel_path.clone(),
            sha256_before: Some(sha_before),
            new_bytes,
        };
        keep_dry_run(&mut fig.value, ws.root(), vec![planned], opts);
        return Ok(Value::Object(fig.value));
    }

    let job = WriteJob {
        dir: &l.res.dir,
        name: &l.res.name,
        display,
        content: slices.clone(),
        original: Some(Original {
            meta: l.meta,
            bytes: l.src.raw(),
        }),
    };
    let (done, (before, sha_after)) = beside(encoded.len() >= PARALLEL_HASH_BYTES, hashes, || {
        commit::commit(std::slice::from_ref(&job), opts.durable)
    });
    let done = done.map_err(|e| commit_failure(e, std::slice::from_ref(&l_abs)))?;
    let sha_before = checked.or(before).expect("hashed when not checked");
    let fig = figures(&l, &plan, encoded.len(), &sha_before, &sha_after);
    sweep_stale(&l.res);
    Ok(with_warnings(Value::Object(fig.value), done))
}

/// New content at least this big is hashed on a second thread while the
/// commit writes, flushes and checks it: hashing (about 1.2 GB/s with the
/// SHA extensions) then overlaps that I/O instead of adding to it. Below
/// this a thread costs more than it saves, and many small edits in flight
/// already keep every core busy.
const PARALLEL_HASH_BYTES: usize = 4 << 20;

/// Runs `side` on a scoped thread while `main` runs on this one (when
/// `parallel`), else after `main`. If no thread can be started, `side` runs
/// here. A panic in `side` is carried over to this thread.
fn beside<M, S: Send>(
    parallel: bool,
    side: impl Fn() -> S + Sync,
    main: impl FnOnce() -> M,
) -> (M, S) {
    if !parallel {
        let m = main();
        return (m, side());
    }
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("pft-hash".into())
            .spawn_scoped(scope, &side);
        let m = main();
        let s = match spawned {
            Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(_) => side(),
        };
        (m, s)
    })
}

// ---------------------------------------------------------------------------
// batchPatchFiles

/// `batchPatchFiles`: edits many files in one all-or-nothing transaction.
pub fn batch_patch_files(input: &Value, options: Option<&Value>) -> Value {
    guarded(|| {
        let opts = match request::options(options, cwd) {
            Ok(o) => o,
            Err(f) => return fail_value(&f, None),
        };
        let req = match request::batch_request(input) {
            Ok(r) => r,
            Err(f) => return fail_value(&f, None),
        };
        let ws = match Workspace::open(&opts.workspace_root) {
            Ok(w) => w,
            Err(f) => return fail_value(&f, None),
        };
        batch(&ws, &req.files, &opts, req.dry_run)
    })
}

fn batch_fail(code: ErrorCode, message: String, files: Vec<Value>) -> Value {
    let mut v = fail_value(&Failure::new(code, message), None);
    v["files"] = Value::Array(files);
    v
}

fn batch(ws: &Workspace, files: &[FileEdits], opts: &Options, dry_run: bool) -> Value {
    let n = files.len();
    // Resolve everything first; refuse the same real file twice.
    let mut resolved: Vec<Result<Resolved, FileFailure>> = Vec::with_capacity(n);
    for fe in files {
        resolved.push(
            ws.resolve(&fe.file_path, Intent::Existing)
                .map_err(|f| FileFailure::from(f).at(&lexical_abs(ws.root(), &fe.file_path))),
        );
    }
    // Symlink aliases resolve to one real path; hard links share an inode.
    let mut seen: HashMap<&Path, usize> = HashMap::new();
    let mut seen_inode: HashMap<(u64, u64), usize> = HashMap::new();
    for (i, r) in resolved.iter().enumerate() {
        if let Ok(r) = r {
            let same_inode = r
                .meta
                .filter(|m| m.ino != 0)
                .and_then(|m| seen_inode.insert((m.dev, m.ino), i));
            if let Some(j) = seen.insert(r.abs_path.as_path(), i).or(same_inode) {
                return fail_value(
                    &Failure::invalid(format!(
                        "files[{j}] and files[{i}] name the same file `{}`; merge their edits into one entry",
                        r.abs_path.display()
                    )),
                    None,
                );
            }
        }
    }
    let paths: Vec<&Path> = resolved
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .map(|r| r.abs_path.as_path())
        .collect();
    let _locks = FileLock::acquire_all(&paths);

    let mut loaded: Vec<Result<(Loaded, String), FileFailure>> = Vec::with_capacity(n);
    for (fe, r) in files.iter().zip(resolved) {
        loaded.push(r.and_then(|res| {
            let abs = res.abs_path.to_string_lossy().into_owned();
            let l = read_resolved(res, opts, &fe.file_path)
                .map_err(|f| FileFailure::from(f).at(&abs))?;
            let sha = check_sha(&l, &fe.expected_sha256, &fe.file_path)?;
            Ok((l, sha))
        }));
    }
    let plans: Vec<Result<Plan<'_>, FileFailure>> = loaded
        .iter()
        .zip(files)
        .map(|(l, fe)| match l {
            Err(f) => Err(FileFailure {
                failure: f.failure.clone(),
                file_path: f.file_path.clone(),
                failed_edits: f.failed_edits.clone(),
                multi: f.multi,
                sha256: f.sha256.clone(),
            }),
            Ok((l, _)) => plan::plan_with(
                l.src.text(),
                &fe.edits,
                text_kind(&l.src),
                &plan_options(fe),
            )
            .map_err(|f| plan_failure(f, l.abs(), fe.edits.len() > 1)),
        })
        .collect();

    let failed = plans.iter().filter(|p| p.is_err()).count();
    if failed > 0 {
        let mut first: Option<ErrorCode> = None;
        let per_file: Vec<Value> = plans
            .iter()
            .enumerate()
            .map(|(i, p)| match p {
                Ok(_) => json!({"index": i, "ok": true, "file_path": loaded[i].as_ref().map(|(l, _)| l.abs()).unwrap_or_default(), "message": "planned; not written because another file failed"}),
                Err(f) => {
                    first.get_or_insert(f.failure.code);
                    let mut v = f.to_value();
                    v["index"] = json!(i);
                    v
                }
            })
            .collect();
        return batch_fail(
            first.unwrap_or(ErrorCode::INTERNAL_ERROR),
            format!("{failed} of {n} files failed, so no file was written (all-or-nothing); see `files` for each"),
            per_file,
        );
    }

    // Everything planned: encode each file's new content.
    let ok: Vec<(&Loaded, &String, Plan<'_>)> = loaded
        .iter()
        .zip(plans)
        .map(|(l, p)| {
            let (l, sha) = l.as_ref().expect("checked");
            (l, sha, p.expect("checked"))
        })
        .collect();
    let pieces: Vec<Vec<&[u8]>> = ok
        .iter()
        .zip(files)
        .map(|((_, _, p), fe)| p.pieces(&fe.edits))
        .collect();
    let encoded: Vec<source::Encoded<'_>> = ok
        .iter()
        .zip(&pieces)
        .map(|((l, _, _), pc)| l.src.encode_pieces(pc))
        .collect();
    let mut results: Vec<Map<String, Value>> = Vec::with_capacity(n);
    for (((l, sha, p), enc), _) in ok.iter().zip(&encoded).zip(files) {
        let sha_after = source::sha256_hex(enc.slices());
        results.push(figures(l, p, enc.len(), sha, &sha_after).value);
    }

    if dry_run {
        let mut planned = Vec::with_capacity(n);
        let mut all_diff = String::new();
        for (i, ((l, sha, _), enc)) in ok.iter().zip(&encoded).enumerate() {
            let new_bytes = enc.to_vec();
            let d = preview_diff(
                &l.res.rel_path,
                Some(&l.src),
                &pieces[i].concat(),
                &new_bytes,
            );
            all_diff.push_str(&d);
            results[i].insert("diff".into(), json!(d));
            planned.push(PlannedFile {
                rel_path: l.res.rel_path.clone(),
                sha256_before: Some((*sha).clone()),
                new_bytes,
            });
        }
        let mut m = Map::new();
        m.insert("ok".into(), Value::Bool(true));
        m.insert("diff".into(), json!(all_diff));
        m.insert(
            "replacements".into(),
            json!(results
                .iter()
                .map(|r| r["replacements"].as_u64().unwrap_or(0))
                .sum::<u64>()),
        );
        keep_dry_run(&mut m, ws.root(), planned, opts);
        m.insert("files".into(), json!(results));
        return Value::Object(m);
    }

    let abs: Vec<String> = ok.iter().map(|(l, _, _)| l.abs()).collect();
    let jobs: Vec<WriteJob<'_>> = ok
        .iter()
        .zip(&encoded)
        .zip(files)
        .map(|(((l, _, _), enc), fe)| WriteJob {
            dir: &l.res.dir,
            name: &l.res.name,
            display: &fe.file_path,
            content: enc.slices(),
            original: Some(Original {
                meta: l.meta,
                bytes: l.src.raw(),
            }),
        })
        .collect();
    let done = match commit::commit(&jobs, opts.durable) {
        Ok(done) => done,
        Err(e) => {
            let names = |ix: &[usize]| ix.iter().map(|&i| abs[i].clone()).collect::<Vec<_>>();
            let (rolled, unrestored) = (names(&e.rolled_back), names(&e.rollback_failed));
            let mut v = commit_failure(e, &abs).to_value();
            v["rolled_back"] = json!(rolled);
            if !unrestored.is_empty() {
                v["rollback_failed"] = json!(unrestored);
            }
            return v;
        }
    };
    for (l, _, _) in &ok {
        sweep_stale(&l.res);
    }
    with_warnings(
        json!({
            "ok": true,
            "replacements": results.iter().map(|r| r["replacements"].as_u64().unwrap_or(0)).sum::<u64>(),
            "files": results,
        }),
        done,
    )
}

// ---------------------------------------------------------------------------
// applyDryRun

/// `applyDryRun`: writes exactly what a dry run previewed, once.
pub fn apply_dry_run(input: &Value, options: Option<&Value>) -> Value {
    guarded(|| {
        let opts = match request::options(options, cwd) {
            Ok(o) => o,
            Err(f) => return fail_value(&f, None),
        };
        let req = match request::apply_request(input) {
            Ok(r) => r,
            Err(f) => return fail_value(&f, None),
        };
        // A dry run of an edit format (it may also move and delete files).
        if let Some(v) = crate::txn::ops::apply_stored(&req.run_id, &opts) {
            return v;
        }
        let Some(entry) = dry_run::take(&req.run_id) else {
            return fail_value(
                &Failure::new(
                    ErrorCode::RUN_ID_NOT_FOUND,
                    format!(
                        "run_id `{}` is unknown, already applied or expired; run the edit again with dry_run: true \
                         (or without it to apply directly)",
                        req.run_id
                    ),
                ),
                None,
            );
        };
        match apply_entry(&entry, &opts) {
            Ok(mut v) => {
                v["run_id"] = json!(req.run_id);
                v
            }
            Err(f) => f.to_value(),
        }
    })
}

fn apply_entry(entry: &dry_run::Entry, opts: &Options) -> Result<Value, FileFailure> {
    let ws = Workspace::open(&entry.root)?;
    let mut resolved = Vec::with_capacity(entry.files.len());
    for f in &entry.files {
        let intent = if f.sha256_before.is_some() {
            Intent::Existing
        } else {
            Intent::Create { create_dirs: true }
        };
        resolved.push(
            ws.resolve(&f.rel_path, intent)
                .map_err(|e| FileFailure::from(e).at(&f.rel_path))?,
        );
    }
    let paths: Vec<&Path> = resolved.iter().map(|r| r.abs_path.as_path()).collect();
    let _locks = FileLock::acquire_all(&paths);
    let mut loaded: Vec<(Resolved, Option<(Source, Meta)>)> = Vec::new();
    for (f, res) in entry.files.iter().zip(resolved) {
        let abs = res.abs_path.to_string_lossy().into_owned();
        let changed = |sha: Option<String>| {
            FileFailure {
            failure: Failure::new(
                ErrorCode::FILE_CHANGED,
                format!(
                    "`{}` changed after the dry run; nothing was written. Reread it and make a new dry run",
                    f.rel_path
                ),
            ),
            file_path: Some(abs.clone()),
            failed_edits: Vec::new(),
            multi: false,
            sha256: sha.map(Into::into),
        }
        };
        match &f.sha256_before {
            Some(expected) => {
                let l = read_resolved(res, opts, &f.rel_path)
                    .map_err(|e| FileFailure::from(e).at(&abs))?;
                let sha = l.src.sha256();
                if &sha != expected {
                    return Err(changed(Some(sha)));
                }
                loaded.push((l.res, Some((l.src, l.meta))));
            }
            None => {
                if res.meta.is_some() || res.dir.stat(&res.name).ok().flatten().is_some() {
                    return Err(changed(None));
                }
                loaded.push((res, None));
            }
        }
    }
    let abs: Vec<String> = loaded
        .iter()
        .map(|(r, _)| r.abs_path.to_string_lossy().into_owned())
        .collect();
    let jobs: Vec<WriteJob<'_>> = loaded
        .iter()
        .zip(&entry.files)
        .map(|((res, orig), f)| WriteJob {
            dir: &res.dir,
            name: &res.name,
            display: &f.rel_path,
            content: vec![f.new_bytes.as_slice()],
            original: orig.as_ref().map(|(s, m)| Original {
                meta: *m,
                bytes: s.raw(),
            }),
        })
        .collect();
    let done = commit::commit(&jobs, opts.durable).map_err(|e| commit_failure(e, &abs))?;
    let files: Vec<Value> = entry
        .files
        .iter()
        .zip(&abs)
        .map(|(f, a)| {
            json!({
                "file_path": a, "created": f.sha256_before.is_none(), "after_bytes": f.new_bytes.len(),
                "sha256_before": f.sha256_before, "sha256": source::sha256_hex([f.new_bytes.as_slice()]),
            })
        })
        .collect();
    let mut v = json!({ "ok": true, "files": files });
    if entry.files.len() == 1 {
        for k in [
            "file_path",
            "created",
            "after_bytes",
            "sha256_before",
            "sha256",
        ] {
            v[k] = files[0][k].clone();
        }
    }
    Ok(with_warnings(v, done))
}

// ---------------------------------------------------------------------------
// readFile / writeFile

/// `readFile`: a line range of a file plus what an edit needs to know.
pub fn read_file(input: &Value, options: Option<&Value>) -> Value {
    guarded(|| {
        let opts = match request::options(options, cwd) {
            Ok(o) => o,
            Err(f) => return fail_value(&f, None),
        };
        let req = match request::read_request(input) {
            Ok(r) => r,
            Err(f) => return fail_value(&f, None),
        };
        let ws = match Workspace::open(&opts.workspace_root) {
            Ok(w) => w,
            Err(f) => return fail_value(&f, None),
        };
        let lexical = lexical_abs(ws.root(), &req.file_path);
        let l = match ws
            .resolve(&req.file_path, Intent::Existing)
            .and_then(|res| read_resolved(res, &opts, &req.file_path))
        {
            Ok(l) => l,
            Err(f) => return fail_value(&f, Some(&lexical)),
        };
        let text = l.src.text();
        let total_lines =
            source::count_newlines(text) + usize::from(!text.is_empty() && !text.ends_with(b"\n"));
        let start = line_offset(text, req.offset);
        let end = match req.limit {
            Some(n) => start + line_offset(&text[start..], n),
            None => text.len(),
        };
        let returned = source::count_newlines(&text[start..end])
            + usize::from(end > start && text[end - 1] != b'\n');
        let mut v = json!({
            "ok": true,
            "file_path": l.abs(),
            "content": String::from_utf8_lossy(&text[start..end]),
            "offset": req.offset,
            "lines": returned,
            "total_lines": total_lines,
            "sha256": l.src.sha256(),
            "encoding": l.src.encoding().name(),
            "bom": !l.src.encoding().bom().is_empty(),
            "line_ending": l.src.line_ending().name(),
            "bytes": l.src.raw().len(),
        });
        if end < text.len() {
            v["next_offset"] = json!(req.offset + returned);
        }
        v
    })
}

/// Byte offset where line `n` (0-based) starts, or the end.
fn line_offset(text: &[u8], n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    memchr::memchr_iter(b'\n', text)
        .nth(n - 1)
        .map(|i| i + 1)
        .unwrap_or(text.len())
}

/// `writeFile`: atomic create-or-replace of a whole file.
pub fn write_file(input: &Value, options: Option<&Value>) -> Value {
    guarded(|| {
        let opts = match request::options(options, cwd) {
            Ok(o) => o,
            Err(f) => return fail_value(&f, None),
        };
        let req = match request::write_request(input) {
            Ok(r) => r,
            Err(f) => return fail_value(&f, None),
        };
        let ws = match Workspace::open(&opts.workspace_root) {
            Ok(w) => w,
            Err(f) => return fail_value(&f, None),
        };
        match write_one(&ws, &req, &opts) {
            Ok(v) => v,
            Err(f) => f.at(&lexical_abs(ws.root(), &req.file_path)).to_value(),
        }
    })
}

fn write_one(
    ws: &Workspace,
    req: &request::WriteRequest,
    opts: &Options,
) -> Result<Value, FileFailure> {
    let display = req.file_path.as_str();
    // A dry run creates no directory; nor does a call whose precondition
    // (`expected_sha256`: the file exists) fails when the file is missing.
    // A `Plan` result is written through only when the file exists (the
    // precondition refuses a missing one), where it equals `Create`'s.
    let create_dirs = req.create_dirs;
    let intent = if req.dry_run || req.expected_sha256.is_some() {
        Intent::Plan { create_dirs }
    } else {
        Intent::Create { create_dirs }
    };
    let res = ws.resolve(display, intent)?;
    let _lock = FileLock::acquire(&res.abs_path);
    let (res, loaded): (Resolved, Option<(Source, Meta)>) = if res.meta.is_some() {
        let l = read_resolved(res, opts, display)?;
        (l.res, Some((l.src, l.meta)))
    } else {
        (res, None)
    };
    let abs = res.abs_path.to_string_lossy().into_owned();
    let sha_before = loaded.as_ref().map(|(s, _)| s.sha256());
    if let Some(expected) = &req.expected_sha256 {
        if sha_before.as_deref() != Some(expected.as_str()) {
            return Err(FileFailure {
                failure: Failure::new(
                    ErrorCode::FILE_CHANGED,
                    format!("`{display}` does not have expected_sha256 (it changed or does not exist); nothing was written"),
                ),
                file_path: Some(abs),
                failed_edits: Vec::new(),
                multi: false,
                sha256: sha_before.map(Into::into),
            });
        }
    }
    let content = req.content.as_bytes();
    // An existing file keeps its encoding and BOM; a byte-level (non-UTF-8)
    // file and a new file are written as UTF-8.
    let enc = match &loaded {
        Some((s, _)) if s.encoding() != Encoding::Bytes => s.encoding(),
        _ => Encoding::Utf8,
    };
    // A BOM the caller included is not doubled.
    let body = if enc.bom().is_empty() {
        content
    } else {
        content
            .strip_prefix("\u{FEFF}".as_bytes())
            .unwrap_or(content)
    };
    let encoded = source::encode_with(enc, &[body]);
    let sha_after = source::sha256_hex(encoded.slices());
    let new_len = encoded.len();
    if req.dry_run {
        let new_bytes = encoded.to_vec();
        let d = preview_diff(
            &res.rel_path,
            loaded.as_ref().map(|(s, _)| s),
            body,
            &new_bytes,
        );
        let mut m = json!({
            "ok": true, "file_path": abs, "created": loaded.is_none(), "diff": d,
            "after_bytes": new_len, "sha256_before": sha_before, "sha256": sha_after,
        });
        let planned = PlannedFile {
            rel_path: res.rel_path.clone(),
            sha256_before: sha_before,
            new_bytes,
        };
        keep_dry_run(
            m.as_object_mut().expect("object"),
            ws.root(),
            vec![planned],
            opts,
        );
        return Ok(m);
    }
    let job = WriteJob {
        dir: &res.dir,
        name: &res.name,
        display,
        content: encoded.slices(),
        original: loaded.as_ref().map(|(s, m)| Original {
            meta: *m,
            bytes: s.raw(),
        }),
    };
    let done = commit::commit(std::slice::from_ref(&job), opts.durable)
        .map_err(|e| commit_failure(e, std::slice::from_ref(&abs)))?;
    sweep_stale(&res);
    Ok(with_warnings(
        json!({
            "ok": true,
            "file_path": abs,
            "created": loaded.is_none(),
            "after_bytes": new_len,
            "after_chars": source::utf16_len(body),
            "encoding": enc.name(),
            "sha256_before": sha_before,
            "sha256": sha_after,
        }),
        done,
    ))
}

#[cfg(test)]
#[path = "transaction_tests.rs"]
mod transaction_tests;
