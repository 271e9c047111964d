//! The checks on a file's new text in one place: [`new_text`] runs them
//! in turn and turns a refusal into the failure an agent reads.

use super::elision::{self, KeptRun, Refusal, Verdict, Why};
use super::syntax;
use crate::error::{ErrorCode, Failure};
use crate::model::{Elisions, Options, SyntaxGuard};
use crate::result::failure::{ElidedLine, Elision};
use crate::result::syntax::{SyntaxProblem, SyntaxReport};
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

/// A refused new text: the failure and its typed detail.
#[derive(Debug, Clone)]
pub(crate) struct Refused {
    pub(crate) failure: Failure,
    /// ELIDED_CONTENT: the marker and the lines it would delete.
    pub(crate) elision: Option<Elision>,
    /// SYNTAX_ERROR_INTRODUCED: the errors.
    pub(crate) syntax: Option<SyntaxReport>,
}

/// Runs every check on `new` (pieces, in order) replacing `old` (`None`:
/// a new file) in the file the caller calls `display`: elision markers
/// first (an expansion is the text the syntax check then reads), then the
/// syntax guard on the text that would be written.
pub(crate) fn new_text(
    old: Option<&[u8]>,
    new: &[&[u8]],
    display: &str,
    opts: &Options,
) -> Result<Checked, Box<Refused>> {
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
            Verdict::Refused(r) => return Err(Box::new(refused(&r, display))),
        }
    }
    if opts.syntax == SyntaxGuard::Off {
        return Ok(checked);
    }
    let cancelled = || opts.cancel.check().is_err();
    let report = match (&checked.expansion, old) {
        (Some(e), Some(o)) => syntax::check_until(display, old, &e.pieces(o), &cancelled),
        _ => syntax::check_until(display, old, new, &cancelled),
    };
    if let Some(r) = report {
        if opts.syntax == SyntaxGuard::Refuse && !r.errors.is_empty() {
            return Err(Box::new(syntax_refused(r, display)));
        }
        checked.syntax = Some(r);
    }
    Ok(checked)
}

/// The failure of an edit that breaks the syntax, with `syntax: "refuse"`.
fn syntax_refused(r: SyntaxReport, display: &str) -> Refused {
    let first = &r.errors[0];
    let what = match first.problem {
        SyntaxProblem::Missing => format!("`{}` is missing", first.token),
        SyntaxProblem::Unexpected => format!("`{}` cannot be parsed there", first.token),
    };
    let more = match r.errors.len() + r.more_errors.unwrap_or(0) {
        1 => String::new(),
        n => format!(" ({n} errors in all, in `syntax.errors`)"),
    };
    let message = format!(
        "the new text of `{display}` does not parse as {}: at line {}, column {}, {what}{more}. Fix the edit and \
         send it again (options.syntax: \"warn\" writes it and reports); nothing was written",
        r.language.as_str(),
        first.line,
        first.column,
    );
    Refused {
        failure: Failure::new(ErrorCode::SYNTAX_ERROR_INTRODUCED, message),
        elision: None,
        syntax: Some(r),
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
        syntax: None,
        elision: Some(Elision {
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
        }),
    }
}
