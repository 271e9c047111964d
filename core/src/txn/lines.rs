//! `editLines` through the pipeline: the file is resolved, locked and read
//! by a [`Txn`], the anchored edits are placed in it
//! ([`crate::matching::line_edits`]) against the snapshot of the read they
//! come from ([`crate::io::snapshots`]), and the new text is encoded in the
//! file's encoding (unchanged text kept as read, BOM and line breaks kept)
//! and committed or kept as a dry run through the same [`Txn`].

use crate::check;
use crate::codec::source;
use crate::error::{ErrorCode, Failure};
use crate::io::snapshots;
use crate::io::workspace::{Intent, Workspace};
use crate::matching::anchors::{keys, lines};
use crate::matching::line_edits::{
    pieces, place, Current, KeptRead, LineEdit, NotPlaced, Placed, SHOWN_REFUSED,
};
use crate::model::Options;
use crate::printer;
use crate::result::files::LineEnding;
use crate::result::lines::{AnchorRefused, LineEditReport, LinesDone, Verified};
use crate::result::marks::{flag, True};
use crate::result::{Failed, Outcome};
use crate::txn::changes::Recorder;
use crate::txn::{Txn, Write};

/// One `editLines` call, normalized.
pub(crate) struct LinesCall<'a> {
    pub(crate) file_path: &'a str,
    pub(crate) edits: &'a [LineEdit],
    pub(crate) expected_sha256: Option<&'a str>,
    /// The new lines came with a read's tags, taken off: said in the
    /// result's warnings.
    pub(crate) untagged: bool,
}

/// Applies (or with `dry_run` plans) the anchored edits of `call`.
pub(crate) fn edit_lines(
    ws: &Workspace,
    call: &LinesCall<'_>,
    opts: &Options,
    rec: &dyn Recorder,
    dry_run: bool,
) -> Outcome<LinesDone> {
    let lexical = ws.lexical_abs(call.file_path);
    let at = |f: Failure| Box::new(Failed::new(&f, Some(&lexical)));
    let mut txn = Txn::new(ws);
    txn.add(call.file_path, Intent::Existing).map_err(at)?;
    txn.lock_and_read(opts).map_err(at)?;
    let s = &txn.slots[0];
    let abs = s.abs();
    let (src, _) = s
        .loaded()
        .map_err(|f| Box::new(Failed::new(&f, Some(&abs))))?;
    let sha_before = s.sha256().unwrap_or_default().to_string();
    if call.expected_sha256.is_some_and(|e| e != sha_before) {
        let f = Failure::new(
            ErrorCode::FILE_CHANGED,
            printer::changed_since_read(call.file_path, true),
        );
        let mut out = Failed::new(&f, Some(&abs));
        out.sha256 = Some(sha_before);
        return Err(Box::new(out));
    }
    let text = src.text();
    let ls = lines(text);
    let ks = keys(text, &ls);
    let cur = Current {
        text,
        lines: &ls,
        keys: &ks,
        eol: match src.line_ending() {
            LineEnding::Crlf => b"\r\n",
            _ => b"\n",
        },
        mixed: src.line_ending() == LineEnding::Mixed,
    };
    let (placed, note) = placed_by_read(&cur, (&abs, &sha_before), call, opts)?;
    let pieces = pieces(&cur, &placed);
    // The one check every write's new text gets (elision markers).
    let looked = check::new_text(Some(text), (&pieces, check::Made::AtOnce), &s.display, opts)
        .map_err(|r| {
            let r = printer::refused(*r);
            let mut out = Failed::new(&r.failure, Some(&abs));
            out.elision = r.elision;
            out.syntax = r.syntax;
            Box::new(out)
        })?;
    let pieces = match &looked.expansion {
        Some(e) => e.pieces(text),
        None => pieces,
    };
    let encoded = src
        .encode_pieces(&pieces, &s.display)
        .map_err(|f| Box::new(Failed::new(&f, Some(&abs))))?;
    let mut done = LinesDone {
        ok: True,
        file_path: abs.clone(),
        verified: placed.verified,
        rebased: flag(placed.rebased),
        note,
        edits: reports(&placed, looked.expansion.as_ref().map_or(&[], |e| &e.kept)),
        before_bytes: src.raw().len(),
        after_bytes: encoded.len(),
        sha256_before: sha_before,
        sha256: String::new(),
        expanded: looked.expansion.as_ref().map(|e| e.report()),
        syntax: looked.syntax.clone(),
        strategy: Default::default(),
        warnings: Vec::new(),
        preview: None,
    };
    if dry_run {
        let new_bytes = encoded.to_vec();
        done.sha256 = source::sha256_hex([new_bytes.as_slice()]);
        let (p, warnings) = txn.keep_one(Some(src), &pieces.concat(), new_bytes, opts);
        done.preview = Some(p);
        done.warnings = warnings;
        done.warnings
            .extend(call.untagged.then(printer::untagged_lines));
        return Ok(done);
    }
    let write = Write {
        slot: 0,
        content: encoded.slices(),
        perms_from: None,
        sha256: None,
        like: None,
    };
    let c = txn
        .commit(std::slice::from_ref(&write), &[], opts, rec)
        .map_err(|e| e.to_failed())?;
    done.sha256 = c.sha256[0].clone();
    done.strategy = c.strategies[0].clone();
    done.warnings = c.warnings;
    done.warnings
        .extend(call.untagged.then(printer::untagged_lines));
    Ok(done)
}

/// The edits of `call` placed in the current file `cur` (`file`: its real
/// path and sha256), and the result's note when they are anchored and
/// were not all judged against kept reads (`placed.verified`).
///
/// Each edit is judged against the kept read of this file that last showed
/// its anchored lines (`line_edits::place`): a read again of a file that
/// changed back, or the lines a refusal showed, is the newer view; a read
/// of other lines is not. An edit without an anchor (append or prepend at
/// an end) needs none.
fn placed_by_read(
    cur: &Current<'_>,
    (abs, sha256): (&str, &str),
    call: &LinesCall<'_>,
    opts: &Options,
) -> Result<(Placed, Option<String>), Box<Failed>> {
    let anchored = call.edits.iter().any(|e| e.pos.is_some());
    let kept = anchored.then(|| snapshots::of(abs));
    let reads: Vec<KeptRead<'_>> = kept
        .iter()
        .flat_map(|k| &k.reads)
        .map(|k| KeptRead {
            keys: &k.keys,
            shown: &k.shown,
        })
        .collect();
    // The diff from a read to the file runs under the file's lock: it is
    // bounded by the call's time budget and by RELOCATE_BUDGET.
    let budget = std::time::Instant::now() + RELOCATE_BUDGET;
    let deadline = opts.cancel.deadline().map_or(budget, |d| d.min(budget));
    match place(cur, &reads, call.edits, Some(deadline)) {
        Ok(p) => {
            // A file over the lines a read keeps: its reads are not kept,
            // and those before them are not used.
            let max = snapshots::max_lines();
            let too_large = cur.keys.len() > max || kept.as_ref().is_some_and(|k| k.too_large);
            let note = (anchored && p.verified != Verified::Snapshot).then(|| match too_large {
                true => printer::anchors_too_large(max),
                false => no_snapshot_note(),
            });
            Ok((p, note))
        }
        Err(n) => {
            // The lines a refusal shows are a read of the file as it is
            // now: a retry with their anchors is judged against them.
            // All of them as one read: kept once (each kept apart, a call of
            // thousands of stale anchors sorted every range kept so far
            // again for each).
            if let NotPlaced::Anchors(r) = &n {
                let shown: Vec<(u64, u64)> = r
                    .iter()
                    .take(SHOWN_REFUSED)
                    .map(|x| (x.shown.0 as u64, x.shown.1 as u64))
                    .collect();
                let read = snapshots::Read {
                    path: abs,
                    sha256,
                    shown: &shown,
                };
                snapshots::keep(&read, Some(cur.keys.to_vec()));
            }
            printer::go_on(&opts.cancel).map_err(|f| Box::new(Failed::new(&f, Some(abs))))?;
            Err(not_placed(n, abs, call.file_path, cur.lines.is_empty()))
        }
    }
}

/// Longest the diff from a read to the file may take (a file rewritten
/// all over costs a diff quadratic in its lines).
const RELOCATE_BUDGET: std::time::Duration = std::time::Duration::from_secs(2);

/// Each edit's report, in the caller's order: where its lines start in the
/// file as written, and how many it removed and wrote (an elision marker
/// among them written as the lines it stands for, `kept`).
fn reports(placed: &Placed, kept: &[check::elision::KeptRun]) -> Vec<LineEditReport> {
    // Lines added or removed before a span, as sent and as expanded.
    let (mut shift, mut grown): (isize, usize) = (0, 0);
    let mut out: Vec<(usize, LineEditReport)> = placed
        .spans
        .iter()
        .map(|s| {
            let line = (s.line as isize + shift).max(0) as usize + 1;
            shift += s.added as isize - s.removed as isize;
            let more: usize = kept
                .iter()
                .filter(|k| (line..line + s.added).contains(&k.line))
                .map(|k| k.to.saturating_sub(k.from))
                .sum();
            let report = LineEditReport {
                line: line + grown,
                removed: s.removed,
                added: s.added + more,
            };
            grown += more;
            (s.edit, report)
        })
        .collect();
    out.sort_by_key(|&(k, _)| k);
    out.into_iter().map(|(_, r)| r).collect()
}

/// What a result checked without a snapshot says.
fn no_snapshot_note() -> String {
    "no read with anchors of this file's current lines is kept here (expired, dropped for newer reads of other files, or read elsewhere): each anchor's ID \
     was checked at its line number only, nothing relocated. Read the file with anchors again before the next \
     edit"
        .to_string()
}

/// The refusal of edits that could not be placed (`empty`: the file has
/// no line, so no anchor can name one, and reading it again shows none:
/// the refusal says to send the edit without `pos`).
fn not_placed(n: NotPlaced, abs: &str, display: &str, empty: bool) -> Box<Failed> {
    match n {
        NotPlaced::OutOfTime => Box::new(Failed::new(
            &Failure::new(
                ErrorCode::ANCHOR_MISMATCH,
                printer::anchors_out_of_time(display, RELOCATE_BUDGET.as_secs()),
            ),
            Some(abs),
        )),
        NotPlaced::Overlap(a, b) => Box::new(Failed::new(
            &Failure::invalid(printer::anchored_overlap(a, b, display)),
            Some(abs),
        )),
        NotPlaced::Anchors(r) => {
            let first = &r[0];
            let message = match empty {
                true => printer::anchored_in_empty_file(display, first.edit, &first.anchor),
                false => printer::anchors_mismatch(
                    r.len(),
                    first.edit,
                    &first.anchor,
                    first.problem.as_str(),
                    match r.len() > SHOWN_REFUSED {
                        true => printer::Shown::First(SHOWN_REFUSED),
                        false if r.iter().all(|x| !x.lines.is_empty()) => printer::Shown::All,
                        false => printer::Shown::Some,
                    },
                ),
            };
            let f = Failure::new(ErrorCode::ANCHOR_MISMATCH, message);
            let mut out = Failed::new(&f, Some(abs));
            out.anchors = Some(
                r.into_iter()
                    .map(|x| AnchorRefused {
                        edit: x.edit,
                        anchor: x.anchor,
                        problem: x.problem,
                        lines: x.lines,
                    })
                    .collect(),
            );
            Box::new(out)
        }
    }
}
