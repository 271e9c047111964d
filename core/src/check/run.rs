//! The checks on a file's new text in one place: [`new_text`] runs them
//! in turn. A refusal comes back as facts ([`Refused`]); the printer
//! (`crate::printer`) words it for the agent.

use super::elision::{self, KeptRun, Refusal, Verdict, Why};
use super::marker::Markers;
use super::{nul, syntax};
use crate::model::{Elisions, Options, SyntaxGuard};
use crate::result::syntax::SyntaxReport;
use crate::result::written::KeptElision;

/// A new text that passed: kept as it is, or expanded.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    /// The expanded text, when a marker was expanded.
    pub(crate) expansion: Option<Expansion>,
    /// What the syntax check says of the text written, when it says
    /// anything (errors the edit introduced, or why it did not check).
    pub(crate) syntax: Option<SyntaxReport>,
}

/// A new text with its markers expanded: `old[..start]`, `mid`,
/// `old[end..]`.
#[derive(Debug)]
pub(crate) struct Expansion {
    start: usize,
    end: usize,
    mid: Vec<u8>,
    /// What each marker kept.
    pub(crate) kept: Vec<KeptRun>,
}

impl Expansion {
    /// The new text as pieces of `old` (the text the check saw) and of the
    /// expansion.
    pub(crate) fn pieces<'a>(&'a self, old: &'a [u8]) -> Vec<&'a [u8]> {
        vec![&old[..self.start], &self.mid, &old[self.end..]]
    }

    /// The new text in one buffer.
    pub(crate) fn to_vec(&self, old: &[u8]) -> Vec<u8> {
        self.pieces(old).concat()
    }

    /// The report of the expansion, as results carry it.
    pub(crate) fn report(&self) -> Vec<KeptElision> {
        self.kept
            .iter()
            .map(|k| KeptElision {
                marker: k.marker.clone(),
                line: k.line,
                kept_lines: [k.from, k.to],
            })
            .collect()
    }
}

/// A refused new text, as facts: which check refused it and why, in the
/// file the caller calls `display`.
#[derive(Debug, Clone)]
pub(crate) enum Refused {
    /// A NUL byte the caller sent, at this 1-based line of the new text,
    /// into a text without one (`INVALID_INPUT`).
    Nul { line: usize, display: String },
    /// An elision marker with no certain reading (`ELIDED_CONTENT`).
    Elided { refusal: Refusal, display: String },
    /// The edit breaks the syntax, with `syntax: "refuse"`
    /// (`SYNTAX_ERROR_INTRODUCED`).
    Syntax {
        report: SyntaxReport,
        display: String,
    },
}

/// How the new text was made from the old one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Made<'b> {
    /// Each edit (or the whole text) against the text as read.
    AtOnce,
    /// Edits applied one after another, each to the text the earlier ones
    /// left: a marker in one stands for lines of that text, which the old
    /// text may not hold as they were (an earlier edit deleted or changed
    /// some). With the text the last edit was applied to (`base`: the new
    /// pieces borrow from it), a marker is expanded only when its reading
    /// against that text and against the old one write the same file;
    /// without it, not at all. `marker`: the first marker line an edit's
    /// replacement holds; one that neither reading finds (a later edit
    /// joined its line to another) is refused too.
    InTurn {
        base: Option<&'b [u8]>,
        marker: Option<String>,
    },
}

/// The first marker line (trimmed) that one of `texts` holds.
pub(crate) fn marker_in<'t>(
    texts: impl IntoIterator<Item = &'t [u8]>,
    m: Markers,
) -> Option<String> {
    texts
        .into_iter()
        .filter(|t| elision::prefilter(&[], &[t], m))
        .flat_map(|t| t.split(|&b| b == b'\n'))
        .map(|l| String::from_utf8_lossy(l).trim().to_string())
        .find(|l| m.is(l))
}

/// Runs every check on `new` (pieces, in order) replacing `old` (`None`:
/// a new file) in the file the caller calls `display`: a NUL byte sent
/// first, then elision markers (an expansion is the text the syntax check
/// then reads), then the syntax guard on the text that would be written.
pub(crate) fn new_text(
    old: Option<&[u8]>,
    (new, made): (&[&[u8]], Made<'_>),
    display: &str,
    opts: &Options,
) -> Result<Checked, Box<Refused>> {
    if let Some(line) = nul::first_nul(old, new) {
        return Err(Box::new(Refused::Nul {
            line,
            display: display.to_string(),
        }));
    }
    let mut checked = Checked::default();
    if let Some(old) = old.filter(|_| opts.elisions != Elisions::Literal) {
        checked.expansion = markers(old, new, made, Markers::of(display)).map_err(|refusal| {
            Box::new(Refused::Elided {
                refusal,
                display: display.to_string(),
            })
        })?;
    }
    if opts.syntax == SyntaxGuard::Off {
        return Ok(checked);
    }
    let cancelled = || opts.cancel.stopped().is_some();
    let report = match (&checked.expansion, old) {
        (Some(e), Some(o)) => syntax::check_until(display, old, &e.pieces(o), &cancelled),
        _ => syntax::check_until(display, old, new, &cancelled),
    };
    if let Some(r) = report {
        if opts.syntax == SyntaxGuard::Refuse && !r.errors.is_empty() {
            return Err(Box::new(Refused::Syntax {
                report: r,
                display: display.to_string(),
            }));
        }
        checked.syntax = Some(r);
    }
    Ok(checked)
}

/// The markers of `new` over `old`, made as `made` says: expanded (`Some`),
/// written as sent (`None`), or refused.
fn markers(
    old: &[u8],
    new: &[&[u8]],
    made: Made<'_>,
    m: Markers,
) -> Result<Option<Expansion>, Refusal> {
    let expansion = |v: Verdict| match v {
        Verdict::Kept => Ok(None),
        Verdict::Expanded {
            start,
            end,
            mid,
            kept,
        } => Ok(Some(Expansion {
            start,
            end,
            mid,
            kept,
        })),
        Verdict::Refused(r) => Err(*r),
    };
    let read = expansion(elision::check(old, new, m))?;
    let Made::InTurn { base, marker } = made else {
        return Ok(read);
    };
    // The same reading over the text the last edit was applied to, or no
    // expansion at all.
    let again = match base {
        // Refused over that text (a marker the earlier edits wrote, sent
        // again): the lines it stands for are not certain either.
        Some(b) => match expansion(elision::check(b, new, m)) {
            Ok(e) => e.map(|e| (b, e)),
            Err(r) => return Err(elision::refusal_at(new, &r.marker, Why::InTurn)),
        },
        None => None,
    };
    match (read, again) {
        (None, None) => match marker {
            // A marker sent that neither reading finds as a line.
            Some(m) => Err(elision::refusal_at(new, &m, Why::InTurn)),
            None => Ok(None),
        },
        (Some(a), Some((b, e))) if a.pieces(old).concat() == e.pieces(b).concat() => Ok(Some(a)),
        (Some(a), _) => Err(elision::refusal_of(old, &a.kept[0], Why::InTurn)),
        (None, Some((b, e))) => Err(elision::refusal_of(b, &e.kept[0], Why::InTurn)),
    }
}
