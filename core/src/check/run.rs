//! The checks on a file's new text in one place: [`new_text`] runs them
//! in turn. A refusal comes back as facts ([`Refused`]); the printer
//! (`crate::printer`) words it for the agent.

use super::elision::{self, KeptRun, Refusal, Verdict};
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

/// Runs every check on `new` (pieces, in order) replacing `old` (`None`:
/// a new file) in the file the caller calls `display`: a NUL byte sent
/// first, then elision markers (an expansion is the text the syntax check
/// then reads), then the syntax guard on the text that would be written.
pub(crate) fn new_text(
    old: Option<&[u8]>,
    new: &[&[u8]],
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
        match elision::check(old, new) {
            Verdict::Kept => {}
            Verdict::Expanded {
                start,
                end,
                mid,
                kept,
            } => {
                checked.expansion = Some(Expansion {
                    start,
                    end,
                    mid,
                    kept,
                })
            }
            Verdict::Refused(r) => {
                return Err(Box::new(Refused::Elided {
                    refusal: *r,
                    display: display.to_string(),
                }))
            }
        }
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
