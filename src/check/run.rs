//! The checks on a file's new text in one place: [`new_text`] runs them
//! in turn and turns a refusal into the failure an agent reads.

use super::elision::{self, KeptRun, Refusal, Verdict, Why};
use crate::error::{ErrorCode, Failure};
use crate::model::{Elisions, Options};
use crate::result::failure::{ElidedLine, Elision};
use crate::result::written::KeptElision;

/// A new text that passed: kept as it is, or expanded.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    /// The expanded text, when a marker was expanded.
    pub(crate) expansion: Option<Expansion>,
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

/// A refused new text: the failure and its typed detail.
#[derive(Debug, Clone)]
pub(crate) struct Refused {
    pub(crate) failure: Failure,
    pub(crate) elision: Elision,
}

/// Runs every check on `new` (pieces, in order) replacing `old` in the file
/// the caller calls `display`.
pub(crate) fn new_text(
    old: Option<&[u8]>,
    new: &[&[u8]],
    display: &str,
    opts: &Options,
) -> Result<Checked, Box<Refused>> {
    let Some(old) = old else {
        return Ok(Checked::default());
    };
    if opts.elisions == Elisions::Literal {
        return Ok(Checked::default());
    }
    match elision::check(old, new) {
        Verdict::Kept => Ok(Checked::default()),
        Verdict::Expanded {
            start,
            end,
            mid,
            kept,
        } => Ok(Checked {
            expansion: Some(Expansion {
                start,
                end,
                mid,
                kept,
            }),
        }),
        Verdict::Refused(r) => Err(Box::new(refused(&r, display))),
    }
}

/// The failure of a refused marker, in words an agent acts on.
fn refused(r: &Refusal, display: &str) -> Refused {
    let span = match (r.deletes.first(), r.deletes.last()) {
        (Some(a), Some(_)) if r.deleted == 1 => format!("line {}", a.0),
        (Some(a), Some(_)) => format!("lines {}-{}", a.0, a.0 + r.deleted - 1),
        _ => "lines".to_string(),
    };
    let why = match r.why {
        Why::Ambiguous => "it could stand for more than one run of the current lines",
        Why::NextToChange => "a new or changed line is beside it, so where the kept lines end is not certain",
        Why::WeakBound => {
            "the unchanged line beside it occurs more than once and no unique unchanged line follows it \
             before a change, so it does not fix where the kept lines end"
        }
        Why::BoundInside => {
            "the unchanged line beside it occurs again among those lines, so it does not fix where the kept \
             lines end"
        }
        Why::TooLarge => "the changed region is too large to align with certainty",
        Why::NoChange => {
            "read as those lines, the edit would change nothing, so a line beside it may be new rather \
             than the one it hid"
        }
    };
    let message = format!(
        "line {} of the new text of `{display}` is an elision marker (`{}`) that would delete {span} of the \
         current file ({} line(s)), and {why}. Send those lines in place of the marker, or keep an unchanged \
         line on each side of the marker (options.elisions: \"literal\" writes markers as they are); nothing \
         was written",
        r.line, r.marker, r.deleted
    );
    Refused {
        failure: Failure::new(ErrorCode::ELIDED_CONTENT, message),
        elision: Elision {
            marker: r.marker.clone(),
            line: r.line,
            deletes: r
                .deletes
                .iter()
                .map(|(line, text)| ElidedLine {
                    line: *line,
                    text: text.clone(),
                })
                .collect(),
            deleted: r.deleted,
        },
    }
}
