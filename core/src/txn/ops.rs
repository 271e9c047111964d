//! Applies an edit-format plan ([`OpPlan`]): files created, changed, moved
//! and deleted, all in one transaction (every file or none), with the same
//! sandbox, encodings, exact-once matching, dry run and `run_id` as every
//! other write. Every format's parser produces the plan; this module is the
//! one place that applies it.
//!
//! The flow: resolve every path (new files with `Intent::Plan`, so nothing
//! is created yet), refuse one file named twice, lock, read, compute each
//! file's new text in memory (exact-once blocks through [`crate::matching::blocks`],
//! hunks through [`crate::matching::locate`]), and report every failing operation if
//! any fails. Only then are missing parent directories created and the
//! writes and removals committed together by [`crate::io::commit`]: a failure
//! there restores the files already replaced and renames back the ones
//! already removed. A dry run keeps the planned bytes (and removals) for
//! `applyDryRun` instead.
//!
//! Entry points call [`execute`]: `applyEditBlocks` and `applyPatch`
//! ([`crate::api`]) and the text editor.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::check;
use crate::codec::source::adapt_line_endings;
use crate::codec::source::{self, Encoding, Source};
use crate::diagnose::Diagnosis;
use crate::error::{ErrorCode, Failure};
use crate::io::dir::Meta;
use crate::io::workspace::{Intent, Resolved, Workspace};
use crate::matching::blocks::{self as edit_blocks, NewText};
use crate::matching::exact::{self, EditMiss, TextKind};
use crate::matching::locate::{self as hunks, HunkFailure};
use crate::matching::verify::{self, Change, Fold};
use crate::model::{
    Base, Block, Changes, Count, Edit, FileAction, FileOp, Format, Hunk, OpPlan, Options,
};
use crate::printer;
use crate::result::diagnosis::Diagnosed;
use crate::result::failure::{Elision, OpFailure, StepFailure};
use crate::result::files::LineEnding;
use crate::result::formats::{self as out, Action as Did, FormatDone, FormatFile, HunkReport};
use crate::result::marks::True;
use crate::result::syntax::SyntaxReport;
use crate::result::written::KeptElision;
use crate::result::{Failed, Outcome};
use crate::text::lines::{break_written, line_count};
use crate::txn::changes::Recorder;
use crate::txn::{file_diff, preview, whole_diff, Added, Kept, Slot, Txn, Write};

/// One exact-once block's outcome.
#[derive(Debug, Clone)]
struct BlockLanded {
    index: usize,
    line: usize,
    line_number: usize,
    /// The replacement as written into the file (line endings adapted).
    replacement: String,
    /// Known to be in the new text as given (blocks planned in one pass).
    in_place: bool,
}

/// What an operation will do, once planned.
struct Planned {
    op: usize,
    kind: Did,
    /// Slot read (and, for a delete or a move, removed).
    src: Option<usize>,
    /// Slot written.
    dst: Option<usize>,
    /// Whether `src` is removed.
    remove_src: bool,
    /// The new text, kept only for a UTF-16 file's preview diff.
    new_text: Option<Vec<u8>>,
    /// The new bytes as they will be written (`None`: nothing written).
    new_bytes: Option<Content>,
    /// Length and sha256 of `new_bytes`.
    after: Option<(usize, String)>,
    hunks: Vec<HunkReport>,
    blocks: Vec<BlockLanded>,
    line_number: Option<usize>,
    /// The elision markers its check expanded.
    expanded: Option<Vec<KeptElision>>,
    /// What the syntax check says of its new text.
    syntax: Option<SyntaxReport>,
    /// Its blocks, when its new text was made in one buffer (not kept as
    /// slices of the old text), and whether they were applied one after
    /// another (each to the text the earlier ones left), for the checks.
    made: Option<MadeFrom>,
}

/// Blocks planned in one pass over the text as read: the edits and the
/// new text as slices of it.
type Sliced = Option<(Vec<Edit>, NewText)>;

/// The blocks a new text in one buffer was made from, and whether they
/// were applied one after another.
type MadeFrom = (Vec<Edit>, bool);

/// A file's new bytes.
enum Content {
    Owned(Vec<u8>),
    /// Edit blocks planned in one pass over the bytes of the file read
    /// (`src`), written from slices of it and of the blocks' replacements.
    Blocks {
        edits: Vec<Edit>,
        text: NewText,
    },
}

impl Planned {
    /// Operation `op`, reading `src` and writing `dst`, not planned yet.
    fn new(op: usize, src: Option<usize>, dst: Option<usize>) -> Self {
        Planned {
            op,
            kind: Did::Update,
            src,
            dst,
            remove_src: false,
            new_text: None,
            new_bytes: None,
            after: None,
            hunks: Vec::new(),
            blocks: Vec::new(),
            line_number: None,
            expanded: None,
            syntax: None,
            made: None,
        }
    }

    /// The new bytes as ordered slices.
    fn new_pieces<'a>(&'a self, slots: &'a [Slot]) -> Option<Vec<&'a [u8]>> {
        Some(match self.new_bytes.as_ref()? {
            Content::Owned(v) => vec![v.as_slice()],
            Content::Blocks { edits, text } => {
                let (s, _) = self.src.and_then(|k| slots[k].cur.as_ref())?;
                text.pieces(s.text(), edits)
            }
        })
    }

    /// The new bytes in one buffer, when they are (all but blocks planned
    /// in one pass; see [`Planned::own`]).
    fn owned_bytes(&self) -> Option<&[u8]> {
        match self.new_bytes.as_ref()? {
            Content::Owned(v) => Some(v),
            Content::Blocks { .. } => None,
        }
    }

    /// Writes planned slices out into one buffer (a dry run keeps the bytes).
    fn own(&mut self, slots: &[Slot]) {
        if let Some(Content::Blocks { .. }) = &self.new_bytes {
            let bytes = self.new_pieces(slots).map(|p| p.concat());
            self.new_bytes = bytes.map(Content::Owned);
        }
    }
}

/// A failing operation: its failure, led by its first failing hunk or
/// block when it has them.
struct OpFailed {
    op: usize,
    failure: Failure,
    file_path: Option<String>,
    match_lines: Vec<usize>,
    diagnosis: Diagnosed,
    /// Every failing hunk (patches).
    hunks: Option<Vec<StepFailure>>,
    /// Every failing SEARCH/REPLACE block (edit blocks, text editor).
    blocks: Option<Vec<StepFailure>>,
    /// An elision marker refused (`ELIDED_CONTENT`).
    elision: Option<Elision>,
    /// The syntax errors refused (`SYNTAX_ERROR_INTRODUCED`).
    syntax: Option<SyntaxReport>,
}

impl OpFailed {
    fn new(op: usize, failure: Failure, file_path: Option<String>) -> Box<OpFailed> {
        Box::new(OpFailed {
            op,
            failure,
            file_path,
            match_lines: Vec::new(),
            diagnosis: Diagnosed::default(),
            hunks: None,
            blocks: None,
            elision: None,
            syntax: None,
        })
    }
}

/// Runs `plan`: its result, or its failure.
pub(crate) fn execute(
    ws: &Workspace,
    plan: &OpPlan,
    opts: &Options,
    rec: &dyn Recorder,
    dry_run: bool,
) -> Outcome<FormatDone> {
    let ops = &plan.ops;
    let mut txn = Txn::new(ws);
    let mut failures: Vec<Box<OpFailed>> = Vec::new();
    // 1. Resolve (nothing is created).
    let refs = resolve_ops(ws, plan, &mut txn, &mut failures)?;

    // 2. Lock and read.
    txn.lock_and_read(opts).map_err(Box::<Failed>::from)?;
    let txn = txn;
    let slots = &txn.slots;

    // 3. Plan every operation in memory.
    let mut planned: Vec<Planned> = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let Some((src, dst)) = refs[i] else { continue };
        if let Some((k, f)) = [src, dst]
            .into_iter()
            .flatten()
            .find_map(|k| slots[k].read_failure.as_ref().map(|f| (k, f)))
        {
            failures.push(OpFailed::new(i, f.clone(), Some(slots[k].abs())));
            continue;
        }
        match plan_op(i, op, src, dst, slots, plan.format, opts) {
            Ok(p) => planned.push(p),
            Err(f) => failures.push(f),
        }
    }
    if !failures.is_empty() {
        return Err(failed(plan, failures));
    }

    // 4. A dry run keeps the plan; otherwise commit.
    if dry_run {
        return Ok(dry_run_done(&txn, plan, planned, opts));
    }
    commit_ops(&txn, plan, &planned, opts, rec)
}

/// The (source, destination) slots of each operation (`None` where its
/// resolution failed: the failure is in `failures`), nothing created; the
/// whole call's failure when two operations name the same file.
// The failures are boxed as everywhere in this module, where they travel in
// `Result`s whose error side must stay small.
#[allow(clippy::type_complexity, clippy::vec_box)]
fn resolve_ops(
    ws: &Workspace,
    plan: &OpPlan,
    txn: &mut Txn<'_>,
    failures: &mut Vec<Box<OpFailed>>,
) -> Result<Vec<Option<(Option<usize>, Option<usize>)>>, Box<Failed>> {
    let ops = &plan.ops;
    // (src, dst) slots per op; `None` where resolution failed.
    let mut refs: Vec<Option<(Option<usize>, Option<usize>)>> = Vec::with_capacity(ops.len());
    let mut owner: HashMap<usize, usize> = HashMap::new(); // slot -> op
    for (i, op) in ops.iter().enumerate() {
        let plan_intent = Intent::Plan { create_dirs: true };
        let (src_path, src_intent, dst_path): (Option<&str>, Intent, Option<&str>) =
            match &op.action {
                FileAction::Write {
                    base: Base::Existing,
                    move_to,
                    ..
                } => (Some(&op.path), Intent::Existing, move_to.as_deref()),
                FileAction::Write {
                    base: Base::New { .. },
                    ..
                } => (None, Intent::Existing, Some(&op.path)),
                FileAction::Delete { .. } => (Some(&op.path), Intent::Existing, None),
            };
        let mut resolve = |p: &str, intent: Intent| -> Result<usize, Refused> {
            let (k, abs) = match txn.add(p, intent) {
                Err(f) => return Err(Refused::Op(OpFailed::new(i, f, Some(ws.lexical_abs(p))))),
                Ok(Added::New(k)) => {
                    owner.insert(k, i);
                    return Ok(k);
                }
                Ok(Added::Again { slot, abs_path }) => (slot, abs_path),
            };
            let j = owner[&k];
            if j == i && abs != txn.slots[k].res.abs_path {
                // A move onto another name of its own file (a hard link):
                // neither a move nor an update of that name.
                let f = Failure::invalid(printer::move_onto_own_link(&op.path, p));
                return Err(Refused::Call(refused_call(
                    plan,
                    &f,
                    &abs.to_string_lossy(),
                )));
            }
            if j == i {
                return Ok(k);
            }
            let other = &ops[j];
            let f = Failure::invalid(printer::same_file_twice(
                p,
                op.line,
                &other.path,
                other.line,
                &abs.display().to_string(),
            ));
            Err(Refused::Call(refused_call(
                plan,
                &f,
                &abs.to_string_lossy(),
            )))
        };
        let src = match src_path.map(|p| resolve(p, src_intent)).transpose() {
            Ok(s) => s,
            Err(Refused::Op(f)) => {
                failures.push(f);
                refs.push(None);
                continue;
            }
            Err(Refused::Call(v)) => return Err(v),
        };
        let dst = match dst_path.map(|p| resolve(p, plan_intent)).transpose() {
            Ok(d) => d,
            Err(Refused::Op(f)) => {
                failures.push(f);
                refs.push(None);
                continue;
            }
            Err(Refused::Call(v)) => return Err(v),
        };
        if let Some(f) = link_refusal(ws.root(), (i, op), txn, (src, dst), dst_path) {
            failures.push(f);
            refs.push(None);
            continue;
        }
        let dst = match (&op.action, src, dst) {
            // A move onto itself is an update; an update writes its source.
            (
                FileAction::Write {
                    base: Base::Existing,
                    ..
                },
                Some(s),
                None,
            ) => Some(s),
            (_, _, d) => d,
        };
        refs.push(Some((src, dst)));
    }
    if let Some(f) = file_over_directory(plan, txn, &refs) {
        return Err(f);
    }
    Ok(refs)
}

/// A call that writes a file at a path another of its operations needs as
/// a directory (`Add File: p` and `Add File: p/q`, a move onto `p` and a
/// new `p/q`): whichever came first, the other fails half-way, after
/// directories were made. Refused before anything is created.
fn file_over_directory(
    plan: &OpPlan,
    txn: &Txn<'_>,
    refs: &[Option<(Option<usize>, Option<usize>)>],
) -> Option<Box<Failed>> {
    let path = |k: usize| txn.slots[k].res.rel_path.as_str();
    let written: HashMap<&str, usize> = refs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| Some((path(r.as_ref()?.1?), i)))
        .collect();
    for (i, r) in refs.iter().enumerate() {
        let Some((src, dst)) = r else { continue };
        for k in [*src, *dst].into_iter().flatten() {
            let p = path(k);
            let parent = p
                .match_indices('/')
                .map(|(at, _)| &p[..at])
                .find_map(|a| written.get(a).map(|&j| (a, j)));
            if let Some((a, j)) = parent {
                let (op, other) = (&plan.ops[i], &plan.ops[j]);
                let f =
                    Failure::invalid(printer::file_over_directory((a, other.line), (p, op.line)));
                return Some(refused_call(plan, &f, &txn.slots[k].abs()));
            }
        }
    }
    None
}

/// The whole call refused for `f`, about the file at `file_path`, in the
/// plan's format.
fn refused_call(plan: &OpPlan, f: &Failure, file_path: &str) -> Box<Failed> {
    let mut v = Failed::new(f, Some(file_path));
    v.format = Some(plan.format);
    Box::new(v)
}

/// Why a path of an operation was refused.
enum Refused {
    /// This operation fails (reported with the others).
    Op(Box<OpFailed>),
    /// The whole call is refused.
    Call(Box<Failed>),
}

/// Commits the planned operations and gives the call's result.
fn commit_ops(
    txn: &Txn<'_>,
    plan: &OpPlan,
    planned: &[Planned],
    opts: &Options,
    rec: &dyn Recorder,
) -> Outcome<FormatDone> {
    let ops = &plan.ops;
    let slots = &txn.slots;
    let mut writes: Vec<Write<'_>> = Vec::new();
    // The planned operation of each write, in order.
    let mut writers: Vec<usize> = Vec::new();
    let mut removes: Vec<usize> = Vec::new();
    for (i, p) in planned.iter().enumerate() {
        if let (Some(d), Some(content)) = (p.dst, p.new_pieces(slots)) {
            writers.push(i);
            writes.push(Write {
                slot: d,
                content,
                perms_from: p.src.filter(|_| p.remove_src),
                sha256: p.after.as_ref().map(|(_, sha)| sha.clone()),
                like: None,
            });
        }
        removes.extend(removed_by(p));
    }
    let committed = txn
        .commit(&writes, &removes, opts, rec)
        .map_err(|e| e.to_failed())?;
    let mut done = success_done(plan, planned, slots, ops);
    // One strategy per write: a file the operation wrote reports how.
    for (&i, s) in writers.iter().zip(&committed.strategies) {
        done.files[i].strategy = s.clone();
    }
    done.warnings.extend(committed.warnings);
    Ok(done)
}

/// The slot an operation removes: a deleted file or a moved file's source.
fn removed_by(p: &Planned) -> Option<usize> {
    if p.remove_src {
        p.src
    } else {
        None
    }
}

/// The real relative path when `user` reaches `res` through a symlink
/// (`None` when the path names the file directly). Absolute paths outside
/// the canonical root spelling are not checked.
fn through_link(root: &Path, user: &str, res: &Resolved) -> Option<String> {
    use std::path::Component;
    let p = Path::new(user);
    let rel = if p.is_absolute() {
        p.strip_prefix(root).ok()?
    } else {
        p
    };
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) => parts.push(n),
            Component::ParentDir => {
                parts.pop();
            }
            _ => {}
        }
    }
    let lexical: PathBuf = parts.iter().collect();
    (lexical.to_string_lossy().replace('\\', "/") != res.rel_path).then(|| res.rel_path.clone())
}

/// Why operation `i` is refused for a symbolic link, if it is. Removing a
/// file named through a symlink (a deletion, a move's source) would remove
/// the link's target and leave the link dangling: the real file must be
/// named. A move onto a symlink (`dst_path`) would write over the file the
/// link names, a file the patch does not name, and keep the link.
fn link_refusal(
    root: &Path,
    (i, op): (usize, &FileOp),
    txn: &Txn<'_>,
    (src, dst): (Option<usize>, Option<usize>),
    dst_path: Option<&str>,
) -> Option<Box<OpFailed>> {
    let removes = matches!(op.action, FileAction::Delete { .. })
        || matches!(
            &op.action,
            FileAction::Write {
                move_to: Some(_),
                ..
            }
        );
    if let (true, Some(k)) = (removes, src) {
        if let Some(real) = through_link(root, &op.path, &txn.slots[k].res) {
            return Some(OpFailed::new(
                i,
                Failure::invalid(printer::through_link(&op.path, &real)),
                Some(txn.slots[k].abs()),
            ));
        }
    }
    let (to, d) = (dst_path?, dst?);
    (src.is_some() && src != Some(d) && is_link(root, to)).then(|| {
        OpFailed::new(
            i,
            Failure::invalid(printer::move_onto_link(
                &op.path,
                to,
                &txn.slots[d].res.rel_path,
            )),
            Some(txn.slots[d].abs()),
        )
    })
}

/// Whether `user` (a path as the caller wrote it, under `root`) names a
/// symbolic link itself (its last component).
fn is_link(root: &Path, user: &str) -> bool {
    let p = Path::new(user);
    let full = if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    };
    std::fs::symlink_metadata(full).is_ok_and(|m| m.file_type().is_symlink())
}

// ---------------------------------------------------------------------------
// Planning one operation

fn plan_op(
    i: usize,
    op: &FileOp,
    src: Option<usize>,
    dst: Option<usize>,
    slots: &[Slot],
    format: Format,
    opts: &Options,
) -> Result<Planned, Box<OpFailed>> {
    let cur = |k: Option<usize>| k.and_then(|k| slots[k].cur.as_ref());
    let abs = |k: Option<usize>| k.map(|k| slots[k].abs());
    let mut p = Planned::new(i, src, dst);
    match &op.action {
        FileAction::Delete { verify } => {
            let (s, _) = cur(src).expect("an existing file was read");
            if let Some(hunks) = verify {
                p.hunks = verified_delete(i, op, (s, hunks), abs(src), &opts.cancel)?;
            }
            p.kind = Did::Delete;
            p.remove_src = true;
        }
        FileAction::Write {
            base,
            changes,
            move_to,
        } => {
            let (base_text, enc, eol) = write_base(i, op, base, cur(src), cur(dst), abs(dst))?;
            let base_text: &[u8] = &base_text;
            if matches!(base, Base::New { .. }) {
                p.kind = Did::Add;
            }
            let bytes_mode = enc.is_bytes();
            let identity = enc.is_identity();
            // Blocks planned in one pass over an existing file written as it
            // is: kept as slices of it, never copied.
            let mut sliced: Option<(Vec<Edit>, NewText)> = None;
            // A diff that removes the file's BOM (see [`apply_hunks`]).
            let mut drops_bom = false;
            let mut legacy_planned: Option<Vec<u8>> = None;
            let mut new_text: Vec<u8> = match changes {
                Changes::None => base_text.to_vec(),
                Changes::Hunks(h) => {
                    let a = apply_hunks(base_text, h, enc, &opts.cancel);
                    let (a, keeps) = a.map_err(|fs| hunk_failure(i, op, fs, abs(src.or(dst))))?;
                    (p.hunks, drops_bom) = (a.hunks, !keeps);
                    a.text
                }
                Changes::Blocks(blocks) => planned_blocks(
                    i,
                    op,
                    blocks,
                    (
                        base_text,
                        enc,
                        eol,
                        identity && matches!(base, Base::Existing),
                    ),
                    cur(src),
                    (abs(src), abs(src.or(dst))),
                    opts,
                    &mut p,
                    (&mut sliced, &mut legacy_planned),
                )?,
                Changes::Insert { after_line, text } => {
                    p.line_number = Some(after_line + 1);
                    apply_insert(base_text, *after_line, text, eol, bytes_mode)
                        .map_err(|f| OpFailed::new(i, f, abs(src)))?
                }
            };
            let enc = if drops_bom { enc.without_bom() } else { enc };
            let identity = identity || (drops_bom && enc.is_identity());
            if matches!(base, Base::New { .. }) {
                drop_callers_bom(enc, &mut new_text);
            }
            let old = match base {
                Base::Existing => Some(base_text),
                Base::New { .. } => cur(dst).map(|(s, _)| s.text()),
            };
            let made = (&sliced, new_text.as_slice(), p.made.as_ref());
            let checked = check_op(i, op, old, made, opts, abs(dst.or(src)))?;
            p.syntax = checked.syntax;
            if let Some((text, report)) = checked.expanded {
                (new_text, sliced, legacy_planned) = (text, None, None);
                p.expanded = Some(report);
            }
            let planned = NewPlan {
                sliced,
                legacy: legacy_planned,
                new_text,
            };
            let (content, kept_text) = content_of(
                i,
                op,
                cur(src),
                abs(src),
                base_text,
                (enc, identity, bytes_mode, matches!(base, Base::Existing)),
                planned,
            )?;
            if kept_text.is_some() {
                p.new_text = kept_text;
            }
            p.new_bytes = Some(content);
            if move_to.is_some() && dst != src {
                refuse_rename_over(i, op, format, cur(dst).is_some(), abs(dst))?;
                p.kind = Did::Move;
                p.remove_src = true;
            }
        }
    }
    p.after = p.new_pieces(slots).map(|pieces| {
        let len = pieces.iter().map(|x| x.len()).sum();
        (len, source::sha256_hex(pieces))
    });
    Ok(p)
}

/// Edit blocks applied to `base` (its text, encoding, line ending, and
/// whether it is an existing file written as it is): the new text; or,
/// planned in one pass over such a file, the plan kept as slices of it
/// (`out.0`, the text returned empty); a legacy file's bytes encoded from
/// the planned pieces, each seam checked where it is (`out.1`).
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn planned_blocks(
    i: usize,
    op: &FileOp,
    blocks: &[Block],
    base: (&[u8], Encoding, LineEnding, bool),
    src: Option<&(Source, Meta)>,
    (abs_src, abs_any): (Option<String>, Option<String>),
    opts: &Options,
    p: &mut Planned,
    out: (&mut Option<(Vec<Edit>, NewText)>, &mut Option<Vec<u8>>),
) -> Result<Vec<u8>, Box<OpFailed>> {
    let (base_text, enc, eol, as_is) = base;
    let kind = if enc.is_bytes() {
        TextKind::Bytes
    } else {
        TextKind::Utf8
    };
    let (edits, t, reports) = match apply_blocks(base_text, blocks, kind, eol, opts) {
        Ok(applied) => applied,
        Err(fs) => return Err(block_failure(i, op, blocks, fs, abs_any)),
    };
    p.line_number = reports.first().map(|r| r.line_number);
    p.blocks = reports;
    let in_turn = matches!(t, NewText::Owned(_));
    if as_is && !in_turn {
        *out.0 = Some((edits, t));
        return Ok(Vec::new());
    }
    if let (Encoding::Legacy(_), Some((s, _)), NewText::Planned(_)) = (enc.lf(), src, &t) {
        let e = s
            .encode_pieces(&t.pieces(base_text, &edits), &op.path)
            .map_err(|f| OpFailed::new(i, f, abs_src))?;
        *out.1 = Some(e.to_vec());
    }
    let bytes = t.into_bytes(base_text, &edits).map_err(|len| {
        OpFailed::new(
            i,
            Failure::new(
                ErrorCode::FILE_TOO_LARGE,
                printer::too_large_to_allocate(&op.path, len),
            ),
            abs_any,
        )
    })?;
    p.made = Some((edits, in_turn));
    Ok(bytes)
}

/// What the checks on an operation's new text say: the text expanded and
/// its report, when a marker was expanded; the syntax check's report.
struct OpChecked {
    expanded: Option<(Vec<u8>, Vec<KeptElision>)>,
    syntax: Option<SyntaxReport>,
}

/// The checks on an operation's new text ([`check::new_text`]), or its
/// failure.
fn check_op(
    i: usize,
    op: &FileOp,
    old: Option<&[u8]>,
    (sliced, new_text, made): (&Sliced, &[u8], Option<&MadeFrom>),
    opts: &Options,
    abs: Option<String>,
) -> Result<OpChecked, Box<OpFailed>> {
    let pieces = match (sliced, old) {
        (Some((edits, t)), Some(old_text)) => t.pieces(old_text, edits),
        _ => vec![new_text],
    };
    // Blocks, as the checks read them ([`exact::for_checks`]); blocks
    // applied one after another keep no text before the last one.
    let blocks = made
        .map(|(e, in_turn)| (e.as_slice(), *in_turn))
        .or(sliced.as_ref().map(|(e, _)| (e.as_slice(), false)));
    let (pieces, made) = match (blocks, old) {
        (Some((edits, in_turn)), Some(o)) => exact::for_checks(
            o,
            edits,
            &pieces,
            in_turn.then_some(None),
            check::Markers::of(&op.path),
        ),
        _ => (pieces, check::Made::AtOnce),
    };
    // An insertion keeps every line: a marker in it stands for none, and is
    // a comment the caller writes (as `editLines`' `append` writes it).
    let literal;
    let opts = match &op.action {
        FileAction::Write {
            changes: Changes::Insert { .. },
            ..
        } if opts.elisions != crate::model::Elisions::Literal => {
            literal = Options {
                elisions: crate::model::Elisions::Literal,
                ..opts.clone()
            };
            &literal
        }
        _ => opts,
    };
    // A moved file is judged under its new name (its language may change).
    let named = match &op.action {
        FileAction::Write {
            move_to: Some(to), ..
        } => to,
        _ => &op.path,
    };
    match check::new_text(old, (&pieces, made), named, opts) {
        Ok(c) => Ok(OpChecked {
            expanded: c.expansion.zip(old).map(|(e, o)| (e.to_vec(o), e.report())),
            syntax: c.syntax,
        }),
        Err(r) => {
            let r = printer::refused(*r);
            let mut f = OpFailed::new(i, r.failure, abs);
            f.elision = r.elision;
            f.syntax = r.syntax;
            Err(f)
        }
    }
}

/// An operation's new text as planned: the text, or the blocks kept as
/// slices of the file, or a legacy file's bytes already encoded.
struct NewPlan {
    sliced: Option<(Vec<Edit>, NewText)>,
    legacy: Option<Vec<u8>>,
    new_text: Vec<u8>,
}

/// The bytes an operation writes, in the file's encoding (`form`: the
/// encoding, whether the text is the bytes, byte-level, an existing file),
/// every seam of a legacy or byte-level file checked; and the new text when
/// a preview needs it beside the bytes (a legacy or UTF-16 file).
#[allow(clippy::type_complexity)]
fn content_of(
    i: usize,
    op: &FileOp,
    src: Option<&(Source, Meta)>,
    abs_src: Option<String>,
    base_text: &[u8],
    form: (Encoding, bool, bool, bool),
    planned: NewPlan,
) -> Result<(Content, Option<Vec<u8>>), Box<OpFailed>> {
    let (enc, identity, bytes_mode, existing) = form;
    let NewPlan {
        sliced,
        legacy,
        new_text,
    } = planned;
    let checked_text = |t: &[u8]| {
        let (s, _) = src.expect("an existing file was read");
        s.encode_text(t, &op.path)
            .map_err(|f| OpFailed::new(i, f, abs_src.clone()))
    };
    Ok(if let Some((edits, text)) = sliced {
        if bytes_mode {
            let (s, _) = src.expect("an existing file was read");
            source::check_byte_seams(s.text(), &text.pieces(base_text, &edits), &op.path)
                .map_err(|f| OpFailed::new(i, f, abs_src.clone()))?;
        }
        (Content::Blocks { edits, text }, None)
    } else if let Some(b) = legacy {
        (Content::Owned(b), Some(new_text))
    } else if existing && matches!(enc.lf(), Encoding::Legacy(_)) {
        let b = checked_text(&new_text)?;
        (Content::Owned(b), Some(new_text))
    } else if existing && bytes_mode {
        // Checked like a legacy file's seams; the bytes are the text (after
        // the BOM of a file that has one).
        (Content::Owned(checked_text(&new_text)?), None)
    } else if identity {
        // UTF-8 without a BOM and byte-level files: the text is the bytes.
        (Content::Owned(new_text), None)
    } else {
        let b = source::encode_checked(enc, &[&new_text], &op.path)
            .map_err(|f| OpFailed::new(i, f, abs_src.clone()))?
            .to_vec();
        // The text a dry run's diff shows for a file read as decoded (the
        // rule `preview` reads it by).
        let kept = enc.is_decoded().then_some(new_text);
        (Content::Owned(b), kept)
    })
}

/// A caller's BOM is not doubled in a new text for a file whose encoding
/// has one.
fn drop_callers_bom(enc: Encoding, new_text: &mut Vec<u8>) {
    if !enc.bom().is_empty() && new_text.starts_with("\u{FEFF}".as_bytes()) {
        new_text.drain(..3);
    }
}

/// The hunks of a diff that deletes a file, checked to remove every line
/// of it: a file that holds more is not deleted.
fn verified_delete(
    i: usize,
    op: &FileOp,
    (s, hunks): (&Source, &[Hunk]),
    abs: Option<String>,
    cancel: &crate::model::Cancel,
) -> Result<Vec<HunkReport>, Box<OpFailed>> {
    match apply_hunks(s.text(), hunks, s.encoding(), cancel).map(|(a, _)| a) {
        Ok(a) if a.text.is_empty() => Ok(a.hunks),
        Ok(_) => Err(OpFailed::new(
            i,
            Failure::new(
                ErrorCode::SEARCH_BLOCK_NOT_FOUND,
                printer::holds_more_than_deleted(&op.path),
            ),
            abs,
        )),
        Err(fs) => Err(hunk_failure(i, op, fs, abs)),
    }
}

/// A Codex move replaces an existing target; a diff's rename (as
/// `git apply`) does not.
fn refuse_rename_over(
    i: usize,
    op: &FileOp,
    format: Format,
    target_exists: bool,
    abs: Option<String>,
) -> Result<(), Box<OpFailed>> {
    if format == Format::UnifiedDiff && target_exists {
        let to = match &op.action {
            FileAction::Write { move_to, .. } => move_to.as_deref().unwrap_or_default(),
            FileAction::Delete { .. } => "",
        };
        return Err(OpFailed::new(
            i,
            Failure::invalid(printer::rename_onto_existing(&op.path, to)),
            abs,
        ));
    }
    Ok(())
}

/// The text an operation writes from, its encoding and its line ending.
type WriteBase<'b> = (Cow<'b, [u8]>, Encoding, LineEnding);

/// The text an operation writes from, with the encoding and line ending
/// it is written in: the file read, or a new file's text (which keeps the
/// encoding and line breaks of a file it replaces; over a byte-level or
/// legacy one, `UNSUPPORTED_ENCODING`).
fn write_base<'b>(
    i: usize,
    op: &FileOp,
    base: &'b Base,
    src: Option<&'b (Source, Meta)>,
    dst: Option<&(Source, Meta)>,
    abs_dst: Option<String>,
) -> Result<WriteBase<'b>, Box<OpFailed>> {
    match base {
        Base::Existing => {
            let (s, _) = src.expect("an existing file was read");
            Ok((Cow::Borrowed(s.text()), s.encoding(), s.file_line_ending()))
        }
        Base::New { text, replace } => {
            if dst.is_some() && !replace {
                return Err(OpFailed::new(
                    i,
                    Failure::invalid(printer::exists_create_only(&op.path)),
                    abs_dst,
                ));
            }
            // A file replaced keeps its encoding and line breaks, as
            // writeFile keeps them; one not in UTF-8 or UTF-16 is not
            // replaced by a text whose every character could be read wrong
            // (a legacy encoding is a guess; a byte-level file's other bytes
            // were shown as U+FFFD).
            let refused = |message: String| {
                Err(OpFailed::new(
                    i,
                    Failure::new(ErrorCode::UNSUPPORTED_ENCODING, message),
                    abs_dst.clone(),
                ))
            };
            let (enc, eol) = match dst {
                Some((s, _)) => match s.encoding().lf() {
                    Encoding::Bytes | Encoding::BytesBom => {
                        return refused(printer::add_over_bytes(&op.path))
                    }
                    Encoding::Legacy(_) => {
                        return refused(printer::add_over_legacy(&op.path, s.encoding().name()))
                    }
                    _ => (s.encoding(), s.file_line_ending()),
                },
                None => (
                    Encoding::Utf8,
                    crate::text::lines::line_ending(text.as_bytes()),
                ),
            };
            let text = match source::adapt_line_endings(text, eol) {
                Cow::Borrowed(t) => Cow::Borrowed(t.as_bytes()),
                Cow::Owned(t) => Cow::Owned(t.into_bytes()),
            };
            Ok((text, enc, eol))
        }
    }
}

/// Applies exact-once blocks in order ([`edit_blocks::apply`]: one pass when it
/// can, in turn otherwise), their line endings adapted to the file's.
fn apply_blocks(
    text: &[u8],
    blocks: &[Block],
    kind: TextKind,
    eol: LineEnding,
    opts: &Options,
) -> Result<(Vec<Edit>, NewText, Vec<BlockLanded>), Vec<EditMiss>> {
    let edits: Vec<Edit> = blocks
        .iter()
        .map(|b| Edit {
            search: adapt_line_endings(&b.search, eol).into_owned(),
            replace: adapt_line_endings(&b.replace, eol).into_owned(),
            count: Count::One,
            said: b.said,
        })
        .collect();
    // The caller's texts, as the plan is checked against them (in a file of
    // lone CRs, read with LF, with their CRs read as that file's breaks).
    let callers: Vec<(&str, &str)> = blocks
        .iter()
        .zip(&edits)
        .map(|(b, e)| match eol {
            LineEnding::Cr => (e.search.as_str(), e.replace.as_str()),
            _ => (b.search.as_str(), b.replace.as_str()),
        })
        .collect();
    let applied = edit_blocks::apply(text, &edits, &callers, kind, &opts.cancel)?;
    let one_pass = applied.one_pass;
    let reports = applied
        .reports
        .into_iter()
        .zip(blocks.iter().zip(&edits))
        .enumerate()
        .map(|(index, (r, (b, e)))| BlockLanded {
            index,
            line: b.line,
            line_number: r.line_number,
            replacement: e.replace.clone(),
            in_place: one_pass,
        })
        .collect();
    Ok((edits, applied.text, reports))
}

/// Applies hunks to the text of a file in encoding `enc` ([`hunks::apply`]).
/// A file with a UTF-8 BOM matches without it, while a diff of its bytes
/// shows it at the start of line 1 ([`hunks::without_bom`]): that hunk must
/// apply at line 1, and the answer says whether the file keeps its BOM.
fn apply_hunks(
    text: &[u8],
    h: &[crate::model::Hunk],
    enc: Encoding,
    cancel: &crate::model::Cancel,
) -> Result<(hunks::Applied, bool), Vec<HunkFailure>> {
    let (h, keep, at) = if matches!(enc.lf(), Encoding::Utf8Bom | Encoding::BytesBom) {
        hunks::without_bom(h, text.is_empty())
    } else {
        (std::borrow::Cow::Borrowed(h), true, None)
    };
    let a = hunks::apply_until(text, &h, enc.is_bytes(), cancel)?;
    if let Some(r) = at.and_then(|k| a.hunks.iter().find(|r| r.index == k)) {
        if r.line_number != 1 {
            return Err(vec![HunkFailure {
                index: r.index,
                patch_line: r.patch_line,
                code: ErrorCode::SEARCH_BLOCK_NOT_FOUND,
                match_count: 0,
                match_lines: Vec::new(),
                why: Box::new(printer::HunkWhy::BomNotFirst {
                    line: r.line_number,
                }),
                diagnosis: None,
            }]);
        }
    }
    Ok((a, keep))
}

/// Inserts `ins` after 1-based line `after` (0: at the top), as whole lines.
fn apply_insert(
    text: &[u8],
    after: usize,
    ins: &str,
    eol: LineEnding,
    bytes_mode: bool,
) -> Result<Vec<u8>, Failure> {
    if bytes_mode && !ins.is_ascii() {
        return Err(Failure::new(
            ErrorCode::UNSUPPORTED_ENCODING,
            printer::insert_not_ascii(),
        ));
    }
    let total = line_count(text);
    if after > total {
        return Err(Failure::invalid(printer::insert_past_end(after, total)));
    }
    let at = if after == 0 {
        0
    } else {
        memchr::memchr_iter(b'\n', text)
            .nth(after - 1)
            .map(|i| i + 1)
            .unwrap_or(text.len())
    };
    // In a file of both breaks, the lines inserted take the break of the
    // line they follow (at the top, of the first line), as editLines does.
    let eol = match eol {
        LineEnding::Mixed => {
            let end = match at {
                0 => memchr::memchr(b'\n', text),
                _ => Some(at - 1),
            };
            match end {
                Some(i) if i > 0 && text[i] == b'\n' && text[i - 1] == b'\r' => LineEnding::Crlf,
                _ => LineEnding::Lf,
            }
        }
        e => e,
    };
    let nl: &str = if eol == LineEnding::Crlf {
        "\r\n"
    } else {
        "\n"
    };
    let adapted = adapt_line_endings(ins, eol);
    // After a last line without a break, the file keeps ending without
    // one; elsewhere the text inserted is whole lines.
    let after_last = at == text.len() && !text.is_empty() && !text.ends_with(b"\n");
    let new = if after_last {
        let lead = &nl[break_written(text, nl.as_bytes())..];
        // data: the inserted text with its line break
        format!("{lead}{}", adapted.strip_suffix(nl).unwrap_or(&adapted))
    } else if adapted.ends_with('\n') {
        adapted.to_string()
    } else {
        // data: the inserted text with its line break
        format!("{adapted}{nl}")
    };
    let change = Change {
        start: at,
        end: at,
        new: new.as_bytes(),
        search: "",
        replace: ins,
        fold: Fold {
            line_endings: adapted != ins,
            final_break: true,
            ..Fold::EXACT
        },
        takes_break: false,
        adds_break: after_last,
    };
    verify::verify(text, std::slice::from_ref(&change)).map_err(|r| {
        Failure::new(
            ErrorCode::PLAN_CHECK_FAILED,
            printer::insert_failed_check(&printer::unverified(&r.why)),
        )
    })?;
    Ok(verify::compose(text, &[change]))
}

// ---------------------------------------------------------------------------
// Results

/// The failure of operation `i`, led by its first failing hunk or block.
fn first_failure(
    i: usize,
    code: ErrorCode,
    message: String,
    match_count: usize,
    match_lines: &[usize],
    diagnosis: Diagnosed,
    file_path: Option<String>,
) -> Box<OpFailed> {
    let mut f = OpFailed::new(
        i,
        Failure {
            code,
            message,
            match_count: Some(match_count),
        },
        file_path,
    );
    f.match_lines = match_lines.to_vec();
    f.diagnosis = diagnosis;
    f
}

/// What diagnosis found for a failing hunk or block (nothing when it was
/// not diagnosed).
fn diagnosed(d: Option<&Diagnosis>) -> Diagnosed {
    d.map(Diagnosis::to_result).unwrap_or_default()
}

fn hunk_failure(
    i: usize,
    op: &FileOp,
    fs: Vec<HunkFailure>,
    file_path: Option<String>,
) -> Box<OpFailed> {
    let first = &fs[0];
    let message = printer::hunks_failed(&op.path, &first.message(), fs.len());
    let mut f = first_failure(
        i,
        first.code,
        message,
        first.match_count,
        &first.match_lines,
        diagnosed(first.diagnosis.as_deref()),
        file_path,
    );
    f.hunks = Some(
        fs.into_iter()
            .map(|h| StepFailure {
                index: h.index,
                patch_line: Some(h.patch_line),
                line: None,
                code: h.code,
                match_count: h.match_count,
                diagnosis: diagnosed(h.diagnosis.as_deref()),
                message: h.message(),
                match_lines: h.match_lines,
            })
            .collect(),
    );
    f
}

fn block_failure(
    i: usize,
    op: &FileOp,
    blocks: &[Block],
    fs: Vec<EditMiss>,
    file_path: Option<String>,
) -> Box<OpFailed> {
    let describe = |e: &EditMiss| {
        let b = &blocks[e.index];
        printer::block_failed(
            &op.path,
            &printer::BlockMiss {
                at: (b.line > 0).then_some((e.index, b.line)),
                said_search: b.said.search,
                code: e.code,
                match_count: e.match_count,
                match_lines: &e.match_lines,
                summary: e.diagnosis.as_ref().and_then(|d| d.summary()),
                message: &e.message(),
            },
        )
    };
    let first = &fs[0];
    let mut message = describe(first);
    message.push_str(&printer::blocks_failed(
        fs.len(),
        fs.len() < exact::MAX_REPORTED_FAILURES,
    ));
    let mut f = first_failure(
        i,
        first.code,
        message,
        first.match_count,
        &first.match_lines,
        diagnosed(first.diagnosis.as_deref()),
        file_path,
    );
    f.blocks = Some(
        fs.iter()
            .map(|e| StepFailure {
                index: e.index,
                patch_line: None,
                line: Some(blocks[e.index].line),
                code: e.code,
                match_count: e.match_count,
                message: describe(e),
                match_lines: e.match_lines.clone(),
                diagnosis: diagnosed(e.diagnosis.as_deref()),
            })
            .collect(),
    );
    f
}

/// The call's failure: the first failing operation's, with every failing
/// operation in `failures`.
// Boxed as everywhere in this module (see `resolve_ops`).
#[allow(clippy::vec_box)]
fn failed(plan: &OpPlan, failures: Vec<Box<OpFailed>>) -> Box<Failed> {
    let n = plan.ops.len();
    let first = &failures[0];
    let message = printer::operations_failed(n, failures.len(), &first.failure.message);
    let mut v = Failed::new(
        &Failure {
            code: first.failure.code,
            message,
            match_count: first.failure.match_count,
        },
        first.file_path.as_deref(),
    );
    v.format = Some(plan.format);
    v.match_lines = first.match_lines.clone();
    v.diagnosis = first.diagnosis.clone();
    v.elision = first.elision.clone();
    v.syntax = first.syntax.clone();
    v.failures = Some(
        failures
            .into_iter()
            .map(|f| {
                let op = &plan.ops[f.op];
                let f = *f;
                OpFailure {
                    index: f.op,
                    path: op.path.clone(),
                    line: (op.line > 0).then_some(op.line),
                    file_path: f.file_path,
                    code: f.failure.code,
                    message: f.failure.message,
                    match_count: f.failure.match_count,
                    match_lines: f.match_lines,
                    diagnosis: f.diagnosis,
                    hunks: f.hunks,
                    blocks: f.blocks,
                }
            })
            .collect(),
    );
    Box::new(v)
}

/// The format as results name it.
/// The per-operation part of a result (how it was written, and a dry run's
/// diff, are added by the caller).
fn op_file(p: &Planned, op: &FileOp, slots: &[Slot]) -> FormatFile {
    let main = if p.kind == Did::Move {
        p.src
    } else {
        p.dst.or(p.src)
    };
    let before = if p.kind == Did::Add { p.dst } else { main };
    let before = before.and_then(|k| slots[k].cur.as_ref()).map(|(s, _)| s);
    FormatFile {
        path: op.path.clone(),
        file_path: main.map(|k| slots[k].abs()),
        action: p.kind,
        move_to: p
            .dst
            .filter(|_| p.kind == Did::Move)
            .map(|d| slots[d].abs()),
        created: (p.kind == Did::Add).then(|| p.dst.is_some_and(|d| slots[d].cur.is_none())),
        before_bytes: before.map(|s| s.raw().len()),
        sha256_before: before.map(Source::sha256),
        after_bytes: p.after.as_ref().map(|(len, _)| *len),
        sha256: p.after.as_ref().map(|(_, sha)| sha.clone()),
        hunks: (!p.hunks.is_empty()).then(|| p.hunks.clone()),
        blocks: (!p.blocks.is_empty()).then(|| {
            p.blocks
                .iter()
                .map(|b| out::BlockReport {
                    index: b.index,
                    line: b.line,
                    line_number: b.line_number,
                    verified: None,
                })
                .collect()
        }),
        line_number: p.line_number,
        read_back_matches: None,
        expanded: p.expanded.clone(),
        syntax: p.syntax.clone(),
        strategy: Default::default(),
        diff: None,
    }
}

/// The hunks applied over every file, when there are any.
fn hunk_total(planned: &[Planned]) -> Option<usize> {
    let n: usize = planned.iter().map(|p| p.hunks.len()).sum();
    (n > 0).then_some(n)
}

/// A file moved onto another replaces it: said (the adapters that show
/// text alone said only "moved").
fn moved_over(planned: &[Planned], slots: &[Slot]) -> Vec<String> {
    planned
        .iter()
        .filter(|p| p.kind == Did::Move)
        .filter_map(|p| p.dst.filter(|&d| slots[d].cur.is_some()))
        .map(|d| printer::moved_over(&slots[d].display))
        .collect()
}

fn success_done(plan: &OpPlan, planned: &[Planned], slots: &[Slot], ops: &[FileOp]) -> FormatDone {
    let mut files: Vec<FormatFile> = planned
        .iter()
        .map(|p| op_file(p, &ops[p.op], slots))
        .collect();
    let (mut verified, mut message) = (None, None);
    if plan.format == Format::EditBlocks {
        let all = verify_blocks(planned, slots, &mut files);
        verified = Some(all);
        if !all {
            message = Some(printer::replacement_not_read_back());
        }
    }
    let warnings = moved_over(planned, slots);
    FormatDone {
        ok: True,
        format: plan.format,
        files,
        hunks: hunk_total(planned),
        verified,
        warnings,
        message,
        preview: None,
    }
}

/// Reads each edited file back (hashing it as it streams, without holding
/// it) and checks that it is what was written and that every block's
/// replacement is in it. Marks each block `verified`; returns whether all
/// are.
///
/// When the file read back is the bytes written, a replacement is looked for
/// in those bytes, already in memory; blocks planned in one pass need no
/// search at all (each replacement was written as given), so verifying
/// costs one read of the file, not a search of it per block.
fn verify_blocks(planned: &[Planned], slots: &[Slot], files: &mut [FormatFile]) -> bool {
    let mut all = true;
    for (p, f) in planned.iter().zip(files.iter_mut()) {
        if p.blocks.is_empty() {
            continue;
        }
        let Some(d) = p.dst else { continue };
        let s = &slots[d];
        let back = s
            .res
            .dir
            .open_file(&s.res.name)
            .ok()
            .and_then(|(file, _)| crate::io::source::sha256_of(file).ok());
        let same = match (&back, &p.after) {
            (Some(b), Some((_, sha))) => {
                f.read_back_matches = Some(b == sha);
                b == sha
            }
            _ => false,
        };
        let written: &[u8] = p
            .new_text
            .as_deref()
            .or(p.owned_bytes())
            .unwrap_or_default();
        let Some(reports) = f.blocks.as_mut() else {
            continue;
        };
        // Replacements to look for: those not known to be in place. A
        // replacement whose marker the checks expanded is not in the file
        // as sent (its expansion is): the read back vouches for it.
        let expanded = |r: &BlockLanded| {
            p.expanded.is_some()
                && check::marker_in([r.replacement.as_bytes()], check::Markers::of(&s.display))
                    .is_some()
        };
        let known = |r: &BlockLanded| r.in_place || expanded(r);
        let unknown: Vec<&[u8]> = p
            .blocks
            .iter()
            .filter(|r| !known(r))
            .map(|r| r.replacement.as_bytes())
            .collect();
        let mut found = edit_blocks::present(written, &unknown).into_iter();
        for (r, report) in p.blocks.iter().zip(reports.iter_mut()) {
            let there = known(r) || found.next().unwrap_or(false);
            let ok = same && there;
            all &= ok;
            report.verified = Some(ok);
        }
    }
    all
}

// ---------------------------------------------------------------------------
// Dry run

fn dry_run_done(
    txn: &Txn<'_>,
    plan: &OpPlan,
    mut planned: Vec<Planned>,
    opts: &Options,
) -> FormatDone {
    let slots = &txn.slots;
    // A dry run keeps the new bytes, so planned slices are written out.
    for p in &mut planned {
        p.own(slots);
    }
    let mut files = Vec::new();
    let mut all_diff = Some(String::new());
    for p in &planned {
        let op = &plan.ops[p.op];
        let mut f = op_file(p, op, slots);
        let old = |k: Option<usize>| k.and_then(|k| slots[k].source());
        let d = match p.kind {
            Did::Delete => preview(
                &slots[p.src.expect("delete has a source")].res.rel_path,
                old(p.src),
                None,
                None,
            ),
            Did::Move => {
                let (s, d) = (p.src.expect("move source"), p.dst.expect("move target"));
                let (from, to) = (&slots[s].res.rel_path, &slots[d].res.rel_path);
                // A file at the target is replaced: its removal first (as
                // `git apply` reads a deletion, then the rename onto it).
                let over = old(p.dst).and_then(|o| preview(to, Some(o), None, None));
                preview(to, old(p.src), p.new_text.as_deref(), p.owned_bytes()).map(|body| {
                    let mut out = over.unwrap_or_default();
                    // data: the diff header of a move
                    out.push_str(&format!("diff --git a/{from} b/{to}\n"));
                    if body.is_empty() {
                        out.push_str("similarity index 100%\n");
                    }
                    // data: the diff lines of a rename
                    out.push_str(&format!("rename from {from}\nrename to {to}\n"));
                    // data: the diff header of the old path
                    if let Some(rest) = body.strip_prefix(&format!("--- a/{to}\n")) {
                        // data: the diff header of the old path
                        out.push_str(&format!("--- a/{from}\n{rest}"));
                    }
                    out
                })
            }
            _ => {
                let k = p.dst.expect("a write has a target");
                preview(
                    &slots[k].res.rel_path,
                    old(p.dst),
                    p.new_text.as_deref(),
                    p.owned_bytes(),
                )
            }
        };
        f.diff = Some(file_diff(d, &mut all_diff));
        files.push(f);
    }
    let removes: Vec<usize> = planned.iter().filter_map(removed_by).collect();
    let hunks = hunk_total(&planned);
    let kept: Vec<Kept> = planned
        .iter_mut()
        .filter_map(|p| {
            let perms_from = if p.kind == Did::Move { p.src } else { None };
            Some(Kept {
                slot: p.dst?,
                bytes: match p.new_bytes.take()? {
                    Content::Owned(b) => b,
                    // Owned by now (see the start); none if its source was not read.
                    Content::Blocks { .. } => return None,
                },
                perms_from,
                like: None,
            })
        })
        .collect();
    let (preview, mut warnings) = txn.keep_preview(whole_diff(all_diff), kept, &removes, opts);
    warnings.extend(moved_over(&planned, &txn.slots));
    FormatDone {
        ok: True,
        format: plan.format,
        files,
        hunks,
        verified: None,
        warnings,
        message: None,
        preview: Some(preview),
    }
}
