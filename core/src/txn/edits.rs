//! Search/replace edits through the pipeline: `patchFile` (one file, one or
//! many edits), `batchPatchFiles` (many files, all or nothing) and
//! `writeFile` (a whole file). Each resolves, locks and reads through a
//! [`Txn`], matches with [`crate::matching::exact`], and commits or keeps a
//! dry run through the same [`Txn`].
//!
//! The new content of an edited file is a list of slices: unchanged spans
//! borrowed from the buffer that was read, and the replacements. It is
//! encoded (UTF-16 only needs a buffer), hashed and written from those
//! slices, never concatenated into a second copy of the file.

use std::collections::HashMap;

use crate::check::{self, Checked, Expansion, Made};
use crate::codec::source::{self, Encoding, Source};
use crate::error::{ErrorCode, Failure};
use crate::io::workspace::{Intent, Workspace};
use crate::matching::exact::{self, EditMiss, MatchOptions, Matched, TextKind};
use crate::model::{Edit, FileEdits, Options};
use crate::printer::{self, Worded};
use crate::result::diagnosis::Tolerance;
use crate::result::edits::{BatchDone, BatchFile, EditReport, PatchDone, WriteDone};
use crate::result::failure::{BatchOutcome, EditFailure, Elision};
use crate::result::files::LineEnding;
use crate::result::marks::True;
use crate::result::syntax::SyntaxReport;
use crate::result::{Failed, Outcome};
use crate::txn::changes::Recorder;
use crate::txn::{file_diff, preview, whole_diff, Added, CommitFailure, Kept, Slot, Txn, Write};

/// A file's failure with its details, before it becomes a [`Failed`].
#[derive(Debug)]
struct FileFailure {
    failure: Failure,
    file_path: Option<String>,
    failed_edits: Vec<EditMiss>,
    /// The file had several edits: `failed_edits` is always listed.
    multi: bool,
    /// What else the result reports (boxed to keep results small).
    detail: Option<Box<Detail>>,
}

/// A file failure's extra detail.
#[derive(Debug)]
enum Detail {
    /// The file's current sha256 (`FILE_CHANGED`).
    Sha256(String),
    /// A failed commit (its result has `rolled_back` and `rollback_failed`).
    Commit(CommitFailure),
    /// A check on the new text refused it (`ELIDED_CONTENT`,
    /// `SYNTAX_ERROR_INTRODUCED`): its detail.
    Refused {
        elision: Option<Elision>,
        syntax: Option<SyntaxReport>,
    },
}

impl From<Failure> for FileFailure {
    fn from(failure: Failure) -> Self {
        FileFailure {
            failure,
            file_path: None,
            failed_edits: Vec::new(),
            multi: false,
            detail: None,
        }
    }
}

impl From<CommitFailure> for FileFailure {
    fn from(c: CommitFailure) -> Self {
        FileFailure {
            failure: c.failure.clone(),
            file_path: c.file_path.clone(),
            detail: Some(Box::new(Detail::Commit(c))),
            ..FileFailure::from(Failure::invalid(""))
        }
    }
}

impl FileFailure {
    /// The failure of the file at `path`. A path far longer than any the
    /// engine takes (refused as such) is not sent back: the caller has it,
    /// and would pay its length again.
    fn at(mut self, path: &str) -> Self {
        if self.file_path.is_none() && path.len() <= crate::result::failure::SHOWN_PATH_BYTES {
            self.file_path = Some(path.to_string());
        }
        self
    }

    fn elided(r: Worded, path: String) -> Self {
        FileFailure {
            file_path: Some(path),
            detail: Some(Box::new(Detail::Refused {
                elision: r.elision,
                syntax: r.syntax,
            })),
            ..FileFailure::from(r.failure)
        }
    }

    fn changed(message: String, path: String, sha256: Option<&str>) -> Self {
        FileFailure {
            file_path: Some(path),
            detail: sha256.map(|s| Box::new(Detail::Sha256(s.to_string()))),
            ..FileFailure::from(Failure::new(ErrorCode::FILE_CHANGED, message))
        }
    }

    /// The failure as its result has it.
    fn to_failed(&self) -> Box<Failed> {
        let sha256 = match self.detail.as_deref() {
            Some(Detail::Commit(c)) => return c.to_failed(),
            Some(Detail::Sha256(s)) => Some(s.clone()),
            _ => None,
        };
        let mut out = Failed::new(&self.failure, self.file_path.as_deref());
        out.sha256 = sha256;
        if let Some(Detail::Refused { elision, syntax }) = self.detail.as_deref() {
            out.elision = elision.clone();
            out.syntax = syntax.clone();
        }
        if let Some(first) = self.failed_edits.first() {
            out.match_lines = first.match_lines.clone();
            if let Some(d) = &first.diagnosis {
                out.diagnosis = d.to_result();
            }
        }
        if self.multi || self.failed_edits.len() > 1 {
            out.failed_edits = Some(self.failed_edits.iter().map(edit_failed).collect());
        }
        Box::new(out)
    }
}

fn edit_failed(f: &EditMiss) -> EditFailure {
    EditFailure {
        index: f.index,
        code: f.code,
        match_count: f.match_count,
        message: f.message(),
        match_lines: f.match_lines.clone(),
        diagnosis: f
            .diagnosis
            .as_ref()
            .map(|d| d.to_result())
            .unwrap_or_default(),
    }
}

/// How the edits of `fe` are planned: its `match` mode, failures diagnosed.
fn plan_options(fe: &FileEdits, opts: &Options) -> MatchOptions {
    MatchOptions {
        mode: fe.match_mode.unwrap_or(opts.default_match),
        cancel: opts.cancel.clone(),
        ..Default::default()
    }
}

/// Tolerances are reported (`matched_with`; `[]` when none was needed) when
/// the caller's `match` asked for them; under a front-end's `defaultMatch`
/// only when one was needed, so an exact landing reads as it always did.
fn report_tolerances<'a>(mut plan: Matched<'a>, fe: &FileEdits) -> Matched<'a> {
    if fe.match_mode.is_none() && plan.tolerated.iter().all(Option::is_none) {
        plan.tolerant_mode = false;
    }
    plan
}

/// `fe` as the text of `src` is read, when that differs: in a file of lone
/// CR line breaks (read with LF), a caller's CR or CRLF is a line break
/// too, so a text copied from the file's bytes matches as it did.
fn as_read(src: &Source, fe: &FileEdits) -> Option<FileEdits> {
    let cr = |e: &Edit| e.search.contains('\r') || e.replace.contains('\r');
    if !src.encoding().is_cr() || !fe.edits.iter().any(cr) {
        return None;
    }
    let lf = |t: &str| source::adapt_line_endings(t, LineEnding::Cr).into_owned();
    let edits = fe
        .edits
        .iter()
        .map(|e| Edit {
            search: lf(&e.search),
            replace: lf(&e.replace),
            ..e.clone()
        })
        .collect();
    Some(FileEdits {
        edits,
        ..fe.clone()
    })
}

fn text_kind(src: &Source) -> TextKind {
    if src.encoding().is_bytes() {
        TextKind::Bytes
    } else {
        TextKind::Utf8
    }
}

/// The file's sha256, checked against `expected` when given.
fn check_sha(s: &Slot, expected: &Option<String>) -> Result<String, FileFailure> {
    let sha = s.sha256().unwrap_or_default();
    if let Some(e) = expected {
        if e != sha {
            return Err(FileFailure::changed(
                printer::changed_since_read(&s.display, false),
                s.abs(),
                Some(sha),
            ));
        }
    }
    Ok(sha.to_string())
}

fn plan_failure(mut failures: Vec<EditMiss>, path: String, multi: bool) -> FileFailure {
    failures.sort_by_key(|f| f.index);
    let first = &failures[0];
    let message = printer::edits_failed(failures.len(), &first.message(), multi);
    FileFailure {
        failure: Failure {
            code: first.code,
            message,
            match_count: Some(first.match_count),
        },
        file_path: Some(path),
        failed_edits: failures,
        multi,
        detail: None,
    }
}

/// The success figures of a planned edit of one file (how it was written,
/// warnings and preview still to be added).
fn figures(
    s: &Slot,
    src: &Source,
    plan: &Matched<'_>,
    new_len: usize,
    sha_before: &str,
    sha_after: &str,
) -> PatchDone {
    let before_chars = src.utf16_len();
    let after_chars = (before_chars as isize + plan.utf16_delta).max(0) as usize;
    let (edits, matched_with, original_text) = edit_reports(plan);
    PatchDone {
        ok: True,
        file_path: s.abs(),
        replacements: plan.replacements(),
        line_number: plan.edits.first().map(|e| e.line_number).unwrap_or(0),
        before_chars,
        after_chars,
        before_bytes: src.raw().len(),
        after_bytes: new_len,
        edits,
        matched_with,
        original_text,
        expanded: None,
        syntax: None,
        sha256_before: sha_before.to_string(),
        sha256: sha_after.to_string(),
        strategy: Default::default(),
        warnings: Vec::new(),
        preview: None,
    }
}

/// Each edit's report and, when `match` allowed tolerances, every tolerance
/// the edits needed (`[]` when all matched exactly) and the original text a
/// single tolerant edit replaced.
fn edit_reports(plan: &Matched<'_>) -> (Vec<EditReport>, Option<Vec<Tolerance>>, Option<String>) {
    let tolerant = plan.tolerant_mode;
    let edits = plan
        .edits
        .iter()
        .enumerate()
        .map(|(i, e)| {
            // Each edit's tolerances, when `match` allowed them (`None`
            // inside: matched exactly).
            let t = plan.tolerated.get(i).filter(|_| tolerant);
            let t_used = t.and_then(Option::as_ref);
            EditReport {
                line_number: e.line_number,
                replacements: e.replacements,
                matched_with: t.map(|_| {
                    t_used
                        .iter()
                        .flat_map(|t| t.matched_with.iter().copied())
                        .collect()
                }),
                original_text: t_used.map(|t| t.original_text.clone()),
            }
        })
        .collect();
    if !tolerant {
        return (edits, None, None);
    }
    let mut all: Vec<Tolerance> = plan
        .tolerated
        .iter()
        .flatten()
        .flat_map(|t| t.matched_with.iter().copied())
        .collect();
    all.sort_unstable();
    all.dedup();
    let original = match plan.tolerated.as_slice() {
        [Some(t)] => Some(t.original_text.clone()),
        _ => None,
    };
    (edits, Some(all), original)
}

/// A success's report of what its checks said: the syntax guard's report;
/// the markers expanded, and the new length (the plan's figure counted the
/// markers, not their lines).
fn expanded(fig: &mut PatchDone, c: &Checked, pieces: &[&[u8]]) {
    fig.syntax = c.syntax.clone();
    if let Some(e) = &c.expansion {
        fig.expanded = Some(e.report());
        fig.after_chars = pieces.iter().map(|p| source::utf16_len(p)).sum();
    }
}

// ---------------------------------------------------------------------------
// One file

/// `patchFile`: the edits of one file, all or nothing.
pub(crate) fn patch(
    ws: &Workspace,
    fe: &FileEdits,
    opts: &Options,
    rec: &dyn Recorder,
    dry_run: bool,
) -> Outcome<PatchDone> {
    patch_one(ws, fe, opts, rec, dry_run)
        .map_err(|f| f.at(&ws.lexical_abs(&fe.file_path)).to_failed())
}

fn patch_one(
    ws: &Workspace,
    fe: &FileEdits,
    opts: &Options,
    rec: &dyn Recorder,
    dry_run: bool,
) -> Result<PatchDone, FileFailure> {
    let mut txn = Txn::new(ws);
    txn.add(&fe.file_path, Intent::Existing)?;
    txn.lock_and_read(opts)?;
    let s = &txn.slots[0];
    let (src, _) = s.loaded()?;
    let abs = s.abs();
    let read_as = as_read(src, fe);
    let fe = read_as.as_ref().unwrap_or(fe);
    // With expected_sha256 the precondition is checked before anything else;
    // without it the hash only serves a success result, so a failing plan
    // (not found, ambiguous) never pays for hashing the file.
    let checked = match fe.expected_sha256 {
        Some(_) => Some(check_sha(s, &fe.expected_sha256)?),
        None => None,
    };
    let plan = exact::match_edits(
        src.text(),
        &fe.edits,
        text_kind(src),
        &plan_options(fe, opts),
    )
    .map(|p| report_tolerances(p, fe))
    .map_err(|f| plan_failure(f, abs.clone(), fe.edits.len() > 1))?;
    let pieces = plan.pieces(&fe.edits);
    let (seen, made) = exact::for_checks(
        src.text(),
        &fe.edits,
        &pieces,
        plan.in_turn().map(Some),
        crate::check::Markers::of(&s.display),
    );
    let looked = check::new_text(Some(src.text()), (&seen, made), &s.display, opts)
        .map_err(|r| FileFailure::elided(printer::refused(*r), abs.clone()))?;
    let pieces = match &looked.expansion {
        Some(e) => e.pieces(src.text()),
        None => pieces,
    };
    let encoded = src
        .encode_pieces(&pieces, &s.display)
        .map_err(|f| FileFailure::from(f).at(&abs))?;
    let slices = encoded.slices();
    let hashes = || source::sha256_pair(src.raw(), &slices, checked.is_none());

    if dry_run {
        let (before, sha_after) = hashes();
        let sha_before = checked.or(before).expect("hashed when not checked");
        s.know_sha256(&sha_before);
        let mut fig = figures(s, src, &plan, encoded.len(), &sha_before, &sha_after);
        expanded(&mut fig, &looked, &pieces);
        let (p, warnings) = txn.keep_one(Some(src), &pieces.concat(), encoded.to_vec(), opts);
        fig.preview = Some(p);
        fig.warnings = warnings;
        return Ok(fig);
    }

    let write = Write {
        slot: 0,
        content: slices.clone(),
        perms_from: None,
        sha256: None,
        like: None,
    };
    // The commit hashes both sides (big content beside its I/O).
    let done = txn.commit(std::slice::from_ref(&write), &[], opts, rec)?;
    let sha_before = s.sha256().expect("hashed by the commit").to_string();
    let mut fig = figures(s, src, &plan, encoded.len(), &sha_before, &done.sha256[0]);
    expanded(&mut fig, &looked, &pieces);
    fig.strategy = done.strategies[0].clone();
    fig.warnings = done.warnings;
    Ok(fig)
}

// ---------------------------------------------------------------------------
// Many files

fn batch_fail(code: ErrorCode, message: String, files: Vec<BatchOutcome>) -> Box<Failed> {
    let mut f = Failed::new(&Failure::new(code, message), None);
    f.files = Some(files);
    Box::new(f)
}

/// `batchPatchFiles`: the edits of many files in one all-or-nothing commit.
pub(crate) fn batch(
    ws: &Workspace,
    files: &[FileEdits],
    opts: &Options,
    rec: &dyn Recorder,
    dry_run: bool,
) -> Outcome<BatchDone> {
    let n = files.len();
    let (txn, slot_of) = open_all(ws, files, opts)?;
    let read_as: Vec<Option<FileEdits>> = slot_of
        .iter()
        .zip(files)
        .map(|(k, fe)| {
            let src = k.as_ref().ok().and_then(|&k| txn.slots[k].source())?;
            as_read(src, fe)
        })
        .collect();
    let owned: Vec<FileEdits>;
    let files = if read_as.iter().any(Option::is_some) {
        owned = read_as
            .into_iter()
            .zip(files)
            .map(|(r, fe)| r.unwrap_or_else(|| fe.clone()))
            .collect();
        &owned[..]
    } else {
        files
    };
    let planned = plan_all(&txn, slot_of, files, opts);
    let failed = planned.iter().filter(|p| p.is_err()).count();
    if failed > 0 {
        return Err(planning_failed(&txn, &planned, n, failed));
    }

    // Everything planned: encode each file's new content.
    let ok: Vec<Planned<'_>> = planned.into_iter().map(|p| p.expect("checked")).collect();
    let pieces: Vec<Vec<&[u8]>> = ok
        .iter()
        .zip(files)
        .map(|((_, _, _, p), fe)| p.pieces(&fe.edits))
        .collect();
    let checked = check_all(&txn, (&ok, files), &pieces, opts, n)?;
    let pieces: Vec<Vec<&[u8]>> = pieces
        .into_iter()
        .zip(&checked)
        .zip(&ok)
        .map(|((p, c), (_, src, ..))| match &c.expansion {
            Some(e) => e.pieces(src.text()),
            None => p,
        })
        .collect();
    let encoded: Vec<Result<source::Encoded<'_>, Failure>> = ok
        .iter()
        .zip(&pieces)
        .map(|((k, src, _, _), pc)| src.encode_pieces(pc, &txn.slots[*k].display))
        .collect();
    if let Some(bad) = encoded.iter().position(Result::is_err) {
        return Err(encoding_failed(&txn, &ok, &encoded, bad, n));
    }
    let encoded: Vec<source::Encoded<'_>> =
        encoded.into_iter().map(|e| e.expect("checked")).collect();
    let results: Vec<PatchDone> = ok
        .iter()
        .zip(&encoded)
        .zip(checked.iter().zip(&pieces))
        .map(|(((k, src, sha, p), enc), (c, pc))| {
            let sha_after = source::sha256_hex(enc.slices());
            let mut fig = figures(&txn.slots[*k], src, p, enc.len(), sha, &sha_after);
            expanded(&mut fig, c, pc);
            fig
        })
        .collect();
    if dry_run {
        Ok(batch_preview(&txn, &ok, &encoded, &pieces, results, opts))
    } else {
        batch_write(&txn, &ok, &encoded, results, opts, rec)
    }
}

/// A planned file of a batch: its slot, source, sha256 and matched edits.
type Planned<'t> = (usize, &'t Source, String, Matched<'t>);

/// A batch's transaction and each file's slot, or why it could not be
/// resolved.
type Opened<'w> = (Txn<'w>, Vec<Result<usize, FileFailure>>);

/// The batch's transaction with every file resolved, locked and read, and
/// each file's slot (or why it could not be resolved); the failure result
/// when the same real file is named twice or the files cannot be locked.
fn open_all<'w>(ws: &'w Workspace, files: &[FileEdits], opts: &Options) -> Outcome<Opened<'w>> {
    let mut txn = Txn::new(ws);
    let mut slot_of: Vec<Result<usize, FileFailure>> = Vec::with_capacity(files.len());
    let mut owner: HashMap<usize, usize> = HashMap::new();
    for (i, fe) in files.iter().enumerate() {
        match txn.add(&fe.file_path, Intent::Existing) {
            Ok(Added::New(k)) => {
                owner.insert(k, i);
                slot_of.push(Ok(k));
            }
            Ok(Added::Again { slot, abs_path }) => {
                return Err(Failure::invalid(printer::batch_same_file(
                    owner[&slot],
                    i,
                    &abs_path.display().to_string(),
                ))
                .into());
            }
            Err(f) => slot_of.push(Err(FileFailure::from(f).at(&ws.lexical_abs(&fe.file_path)))),
        }
    }
    txn.lock_and_read(opts)?;
    Ok((txn, slot_of))
}

/// Each file's edits matched against its current content.
fn plan_all<'t>(
    txn: &'t Txn<'_>,
    slot_of: Vec<Result<usize, FileFailure>>,
    files: &'t [FileEdits],
    opts: &Options,
) -> Vec<Result<Planned<'t>, FileFailure>> {
    slot_of
        .into_iter()
        .zip(files)
        .map(|(k, fe)| {
            let k = k?;
            let s = &txn.slots[k];
            let (src, _) = s.loaded().map_err(|f| FileFailure::from(f).at(&s.abs()))?;
            let sha = check_sha(s, &fe.expected_sha256)?;
            let plan = exact::match_edits(
                src.text(),
                &fe.edits,
                text_kind(src),
                &plan_options(fe, opts),
            )
            .map(|p| report_tolerances(p, fe))
            .map_err(|f| plan_failure(f, s.abs(), fe.edits.len() > 1))?;
            Ok((k, src, sha, plan))
        })
        .collect()
}

/// The entry of a file that was planned but not written, because another
/// file of the batch failed.
fn planned_only(i: usize, abs: String) -> BatchOutcome {
    BatchOutcome::Planned {
        ok: True,
        index: i,
        file_path: abs,
        message: "planned; not written because another file failed".into(),
    }
}

/// The result of a batch in which `failed` of `n` files could not be planned.
fn planning_failed(
    txn: &Txn<'_>,
    planned: &[Result<Planned<'_>, FileFailure>],
    n: usize,
    failed: usize,
) -> Box<Failed> {
    let mut first: Option<ErrorCode> = None;
    let per_file: Vec<BatchOutcome> = planned
        .iter()
        .enumerate()
        .map(|(i, p)| match p {
            Ok((k, ..)) => planned_only(i, txn.slots[*k].abs()),
            Err(f) => {
                first.get_or_insert(f.failure.code);
                BatchOutcome::Failed {
                    index: i,
                    failure: f.to_failed(),
                }
            }
        })
        .collect();
    batch_fail(
        first.unwrap_or(ErrorCode::INTERNAL_ERROR),
        printer::batch_failed(failed, n),
        per_file,
    )
}

/// Every planned file's new text checked ([`check::new_text`]), or the
/// result of a batch in which one was refused.
fn check_all(
    txn: &Txn<'_>,
    (ok, files): (&[Planned<'_>], &[FileEdits]),
    pieces: &[Vec<&[u8]>],
    opts: &Options,
    n: usize,
) -> Outcome<Vec<Checked>> {
    let checked: Vec<Result<Checked, Box<Worded>>> = ok
        .iter()
        .zip(files)
        .zip(pieces)
        .map(|(((k, src, _, plan), fe), pc)| {
            let markers = crate::check::Markers::of(&txn.slots[*k].display);
            let (seen, made) =
                exact::for_checks(src.text(), &fe.edits, pc, plan.in_turn().map(Some), markers);
            check::new_text(
                Some(src.text()),
                (&seen, made),
                &txn.slots[*k].display,
                opts,
            )
            .map_err(|r| Box::new(printer::refused(*r)))
        })
        .collect();
    let Some(bad) = checked.iter().position(Result::is_err) else {
        return Ok(checked.into_iter().map(|c| c.expect("checked")).collect());
    };
    let per_file: Vec<BatchOutcome> = ok
        .iter()
        .zip(&checked)
        .enumerate()
        .map(|(i, ((k, ..), c))| match c {
            Ok(_) => planned_only(i, txn.slots[*k].abs()),
            Err(r) => BatchOutcome::Failed {
                index: i,
                failure: FileFailure::elided((**r).clone(), txn.slots[*k].abs()).to_failed(),
            },
        })
        .collect();
    let failed = checked.iter().filter(|c| c.is_err()).count();
    let code = checked[bad].as_ref().expect_err("refused").failure.code;
    Err(batch_fail(code, printer::batch_failed(failed, n), per_file))
}

/// The result of a batch whose file `bad` cannot be encoded back.
fn encoding_failed(
    txn: &Txn<'_>,
    ok: &[Planned<'_>],
    encoded: &[Result<source::Encoded<'_>, Failure>],
    bad: usize,
    n: usize,
) -> Box<Failed> {
    let per_file: Vec<BatchOutcome> = ok
        .iter()
        .zip(encoded)
        .enumerate()
        .map(|(i, ((k, ..), e))| match e {
            Ok(_) => planned_only(i, txn.slots[*k].abs()),
            Err(f) => BatchOutcome::Failed {
                index: i,
                failure: FileFailure::from(f.clone())
                    .at(&txn.slots[*k].abs())
                    .to_failed(),
            },
        })
        .collect();
    let f = encoded[bad].as_ref().expect_err("an error");
    batch_fail(f.code, printer::batch_failed(1, n), per_file)
}

/// A batch's dry run: each file's preview, one diff and one run_id for all.
fn batch_preview(
    txn: &Txn<'_>,
    ok: &[Planned<'_>],
    encoded: &[source::Encoded<'_>],
    pieces: &[Vec<&[u8]>],
    results: Vec<PatchDone>,
    opts: &Options,
) -> BatchDone {
    let mut kept = Vec::with_capacity(ok.len());
    let mut files = Vec::with_capacity(ok.len());
    let mut all_diff = Some(String::new());
    let planned = ok.iter().zip(encoded).zip(results);
    for (i, (((k, src, _, _), enc), figures)) in planned.enumerate() {
        let new_bytes = enc.to_vec();
        let d = preview(
            &txn.slots[*k].res.rel_path,
            Some(src),
            Some(&pieces[i].concat()),
            Some(&new_bytes),
        );
        files.push(BatchFile {
            figures,
            diff: Some(file_diff(d, &mut all_diff)),
        });
        kept.push(Kept {
            slot: *k,
            bytes: new_bytes,
            perms_from: None,
            like: None,
        });
    }
    let (p, warnings) = txn.keep_preview(whole_diff(all_diff), kept, &[], opts);
    BatchDone {
        ok: True,
        replacements: files.iter().map(|f| f.figures.replacements).sum(),
        files,
        warnings,
        preview: Some(p),
    }
}

/// A batch's commit: every file written, or none.
fn batch_write(
    txn: &Txn<'_>,
    ok: &[Planned<'_>],
    encoded: &[source::Encoded<'_>],
    results: Vec<PatchDone>,
    opts: &Options,
    rec: &dyn Recorder,
) -> Outcome<BatchDone> {
    let writes: Vec<Write<'_>> = ok
        .iter()
        .zip(encoded)
        .zip(&results)
        .map(|(((k, ..), enc), r)| Write {
            slot: *k,
            content: enc.slices(),
            perms_from: None,
            sha256: Some(r.sha256.clone()),
            like: None,
        })
        .collect();
    let done = txn
        .commit(&writes, &[], opts, rec)
        .map_err(|e| e.to_failed())?;
    let files: Vec<BatchFile> = results
        .into_iter()
        .enumerate()
        .map(|(i, mut figures)| {
            if let Some(s) = done.strategies.get(i) {
                figures.strategy = s.clone();
            }
            BatchFile {
                figures,
                diff: None,
            }
        })
        .collect();
    Ok(BatchDone {
        ok: True,
        replacements: files.iter().map(|f| f.figures.replacements).sum(),
        files,
        warnings: done.warnings,
        preview: None,
    })
}

// ---------------------------------------------------------------------------
// A whole file

/// A `writeFile` call, normalized.
pub(crate) struct WholeFile<'a> {
    pub(crate) file_path: &'a str,
    pub(crate) content: &'a str,
    pub(crate) expected_sha256: Option<&'a str>,
    pub(crate) create_dirs: bool,
    /// `Some(Encoding::Utf8)`: the caller said `encoding: "utf-8"`, so the
    /// file is written as UTF-8 whatever it holds now (a UTF-8 file keeps its
    /// BOM). `None`: an existing file keeps its encoding, and one that is not
    /// valid UTF-8 (byte-level) is refused, since its bytes were never seen
    /// as text.
    pub(crate) encoding: Option<Encoding>,
    /// Write the content's line breaks as sent; otherwise an existing file
    /// whose line breaks are all LF or all CRLF keeps them.
    pub(crate) line_endings_as_sent: bool,
}

/// `writeFile`: creates or replaces a whole file.
pub(crate) fn write_whole(
    ws: &Workspace,
    req: &WholeFile<'_>,
    opts: &Options,
    rec: &dyn Recorder,
    dry_run: bool,
) -> Outcome<WriteDone> {
    write_one(ws, req, opts, rec, dry_run)
        .map_err(|f| f.at(&ws.lexical_abs(req.file_path)).to_failed())
}

/// The encoding a whole-file write is written in. An existing file keeps
/// its encoding and BOM, unless the caller asked for UTF-8; a new file is
/// UTF-8. A byte-level (non-UTF-8) file is only replaced when the caller
/// said so: whatever it read of it showed U+FFFD for the bytes that are not
/// UTF-8, and writing that back would destroy them.
fn write_encoding(
    loaded: Option<&Source>,
    requested: Option<Encoding>,
    display: &str,
    abs: &str,
) -> Result<Encoding, FileFailure> {
    Ok(match (loaded.map(Source::encoding), requested) {
        (Some(Encoding::Bytes | Encoding::BytesBom), None) => {
            return Err(FileFailure::from(Failure::new(
                ErrorCode::UNSUPPORTED_ENCODING,
                printer::write_over_bytes(display),
            ))
            .at(abs));
        }
        (Some(l), None) if matches!(l.lf(), Encoding::Legacy(_)) => {
            return Err(FileFailure::from(Failure::new(
                ErrorCode::UNSUPPORTED_ENCODING,
                printer::write_over_legacy(display, l.name()),
            ))
            .at(abs));
        }
        // A file with a BOM keeps it, and one of lone CR breaks keeps them
        // in the encoding asked for.
        (Some(l @ (Encoding::Utf8Bom | Encoding::Utf8BomCr)), _) => l,
        (Some(Encoding::BytesBom), Some(e)) if e.lf() == Encoding::Utf8 => Encoding::Utf8Bom,
        (Some(l), Some(e)) if l.is_cr() => e.cr(),
        (Some(e), None) => e,
        (_, Some(e)) => e,
        (None, None) => Encoding::Utf8,
    })
}

/// The encoding a whole-file write of `content` uses, and the text to
/// encode: a BOM the caller included is not doubled.
fn encoding_and_body<'c>(
    loaded: Option<&Source>,
    req: &WholeFile<'_>,
    content: &'c [u8],
    abs: &str,
) -> Result<(Encoding, &'c [u8]), FileFailure> {
    let enc = match write_encoding(loaded, req.encoding, req.file_path, abs)? {
        // Line breaks as sent: not turned into the file's CRs.
        e if e.is_cr() && req.line_endings_as_sent => e.lf(),
        e => e,
    };
    let body = if enc.bom().is_empty() {
        content
    } else {
        content
            .strip_prefix("\u{FEFF}".as_bytes())
            .unwrap_or(content)
    };
    Ok((enc, body))
}

fn write_one(
    ws: &Workspace,
    req: &WholeFile<'_>,
    opts: &Options,
    rec: &dyn Recorder,
    dry_run: bool,
) -> Result<WriteDone, FileFailure> {
    let display = req.file_path;
    // Nothing is created before the commit: a dry run, or a call whose
    // precondition (`expected_sha256`: the file exists) fails, leaves the
    // tree as it was.
    let mut txn = Txn::new(ws);
    txn.add(
        display,
        Intent::Create {
            create_dirs: req.create_dirs,
        },
    )?;
    txn.lock_and_read(opts)?;
    let s = &txn.slots[0];
    if let Some(f) = &s.read_failure {
        return Err(f.clone().into());
    }
    let loaded = s.source();
    let abs = s.abs();
    let sha_before = s.sha256();
    if let Some(expected) = req.expected_sha256 {
        if sha_before != Some(expected) {
            return Err(FileFailure::changed(
                printer::not_expected_sha(display),
                abs,
                sha_before,
            ));
        }
    }
    // An existing file keeps its line breaks: a model sends LF, and LF text
    // written over a CRLF file would flip every line of it. Only where the
    // file and the text each use one kind throughout; a mixed file, or mixed
    // text, is written as sent.
    let content = match loaded {
        Some(src) if !req.line_endings_as_sent => {
            source::adapt_line_endings(req.content, src.file_line_ending())
        }
        _ => std::borrow::Cow::Borrowed(req.content),
    };
    let (enc, body) = encoding_and_body(loaded, req, content.as_bytes(), &abs)?;
    let checked = check::new_text(
        loaded.map(Source::text),
        (&[body], Made::AtOnce),
        display,
        opts,
    )
    .map_err(|r| FileFailure::elided(printer::refused(*r), s.abs()))?;
    let whole: Vec<u8>;
    let body: &[u8] = match (&checked.expansion, loaded) {
        (Some(e), Some(src)) => {
            whole = e.to_vec(src.text());
            &whole
        }
        _ => body,
    };
    let encoded =
        source::encode_checked(enc, &[body], display).map_err(|f| FileFailure::from(f).at(&abs))?;
    let sha_after = source::sha256_hex(encoded.slices());
    let mut out = WriteDone {
        ok: True,
        file_path: abs,
        created: loaded.is_none(),
        after_bytes: encoded.len(),
        after_chars: None,
        encoding: None,
        sha256_before: sha_before.map(str::to_string),
        sha256: sha_after,
        expanded: checked.expansion.as_ref().map(Expansion::report),
        syntax: checked.syntax.clone(),
        strategy: Default::default(),
        warnings: Vec::new(),
        preview: None,
    };
    // A file written in another encoding than it was in (`encoding` asked
    // for): its text diff does not show that every byte may change.
    let recoded = loaded
        .map(Source::encoding)
        .filter(|was| was.name() != enc.name())
        .map(|was| printer::recoded(display, was.name(), enc.name()));
    if dry_run {
        let (p, warnings) = txn.keep_one(loaded, body, encoded.to_vec(), opts);
        out.preview = Some(p);
        out.warnings = warnings;
        out.warnings.extend(recoded);
        return Ok(out);
    }
    let write = Write {
        slot: 0,
        content: encoded.slices(),
        perms_from: None,
        sha256: Some(out.sha256.clone()),
        like: None,
    };
    let done = txn.commit(std::slice::from_ref(&write), &[], opts, rec)?;
    out.after_chars = Some(source::utf16_len(body));
    out.encoding = Some(enc.name().to_string());
    out.strategy = done.strategies[0].clone();
    out.warnings = done.warnings;
    out.warnings.extend(recoded);
    Ok(out)
}
