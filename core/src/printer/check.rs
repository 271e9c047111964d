//! The refusals of the checks on a file's new text (`crate::check`): a
//! NUL byte sent into a text file (`INVALID_INPUT`), an elision marker with no certain reading (`ELIDED_CONTENT`) and an edit
//! that breaks the syntax under `syntax: "refuse"`
//! (`SYNTAX_ERROR_INTRODUCED`), worded for the agent with the detail
//! results carry.

use crate::check::elision::{Refusal, Why};
use crate::check::Refused;
use crate::error::{ErrorCode, Failure};
use crate::result::failure::{ElidedLine, Elision};
use crate::result::syntax::{SyntaxProblem, SyntaxReport};

/// A refusal worded: the failure (code and message) and its typed detail.
#[derive(Debug, Clone)]
pub(crate) struct Worded {
    pub(crate) failure: Failure,
    /// ELIDED_CONTENT: the marker and the lines it would delete.
    pub(crate) elision: Option<Elision>,
    /// SYNTAX_ERROR_INTRODUCED: the errors.
    pub(crate) syntax: Option<SyntaxReport>,
}

/// The failure an agent reads for the refusal `r`.
pub(crate) fn refused(r: Refused) -> Worded {
    match r {
        Refused::Nul { line, display } => nul(line, &display),
        Refused::Elided { refusal, display } => elided(&refusal, &display),
        Refused::Syntax { report, display } => syntax_refused(report, &display),
    }
}

/// The failure of a new text holding a NUL byte.
fn nul(line: usize, display: &str) -> Worded {
    let message = format!(
        "the new text of `{display}` holds a NUL byte (line {line}): a text file holds none, and with it the file \
         would read as binary. Send the text without it (an escape such as \\0 where the code needs the \
         character); nothing was written"
    );
    Worded {
        failure: Failure::new(ErrorCode::INVALID_INPUT, message),
        elision: None,
        syntax: None,
    }
}

/// The failure of an edit that breaks the syntax, with `syntax: "refuse"`.
fn syntax_refused(r: SyntaxReport, display: &str) -> Worded {
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
    Worded {
        failure: Failure::new(ErrorCode::SYNTAX_ERROR_INTRODUCED, message),
        elision: None,
        syntax: Some(r),
    }
}

/// The failure of a refused marker, in words an agent acts on.
fn elided(r: &Refusal, display: &str) -> Worded {
    let span = match (r.deletes.first(), r.deletes.last()) {
        (Some(a), Some(_)) if r.deleted == 1 => format!("line {}", a.0),
        (Some(a), Some(_)) => format!("lines {}-{}", a.0, a.0 + r.deleted - 1),
        _ => "lines".to_string(),
    };
    let why = match r.why {
        Why::Ambiguous => "it could stand for more than one run of the current lines",
        Why::NextToChange | Why::BesideDeletion => {
            "a new or changed line is beside it, so where the kept lines end is not certain"
        }
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
        Why::Copied => {
            "read as those lines, a line among them that the new text also writes elsewhere would be \
             written twice, so whether it was moved or copied is not certain"
        }
        Why::InTurn | Why::Stray | Why::Elsewhere | Why::BesideNew => "",
        Why::Moved => {
            "those lines lie beyond the unchanged lines between them and the marker, which may have been moved \
             there with the marker keeping those lines, so whether they are to be deleted is not certain"
        }
    };
    // A moved line's refusal names the lines the reading deletes beyond
    // it, not lines of the marker's run.
    let (deletes, fix) = match r.why {
        Why::Moved => (
            "whose reading would delete",
            "Send those lines where they are meant to be, or every line up to the marker",
        ),
        _ => (
            "that would delete",
            "Send those lines in place of the marker, or keep an unchanged line on each side of the marker",
        ),
    };
    let message = if let Some(m) = own_message(r, display, &span) {
        m
    } else if r.deleted == 0 {
        // No line deleted beside it in the reading found, others elsewhere.
        format!(
            "line {} of the new text of `{display}` is an elision marker (`{}`) in a change that deletes lines of \
             the current file, and {why}. Keep an unchanged line on each side of the marker, or send the lines it \
             stands for; a comment meant as written can be reworded (options.elisions: \"literal\" writes markers \
             as they are); nothing was written",
            r.line, r.marker
        )
    } else {
        format!(
        "line {} of the new text of `{display}` is an elision marker (`{}`) {deletes} {span} of the current \
         file ({} line(s)), and {why}. {fix}; a comment meant as written can be reworded (options.elisions: \
         \"literal\" writes markers as they are); nothing was written",
        r.line, r.marker, r.deleted
    )
    };
    Worded {
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

/// The message of a refusal whose reason words it whole (the others share
/// one sentence), if `r` is one.
fn own_message(r: &Refusal, display: &str, span: &str) -> Option<String> {
    Some(match r.why {
        Why::InTurn => {
            // Its lines depend on the earlier edits: named only as a reading of
            // the file as read, when there is one.
            let read = match r.deleted {
                0 => String::new(),
                n => format!(" (read against the file as read: {span}, {n} line(s))"),
            };
            format!(
                "line {} of the new text of `{display}` is an elision marker (`{}`) in an edit applied after another \
                 of the same call, which changed the text around it, so which current lines it stands for is not \
                 certain{read}. Send the lines it stands for, or send that edit in a call of its own; nothing was \
                 written",
                r.line, r.marker
            )
        }
        Why::Stray => format!(
            "line {} of the new text of `{display}` is an elision marker (`{}`) that stands for no line of the \
             current file where it is, so it would be written as a line of the file, while another marker of the \
             same text stands for current lines: it may have been meant to stand for lines too (a block moved \
             beside it, say). Send the lines it stands for, or leave it out; a comment meant as written can be \
             reworded (options.elisions: \"literal\" writes markers as they are); nothing was written",
            r.line, r.marker
        ),
        Why::BesideNew => format!(
            "line {} of the new text of `{display}` is an elision marker (`{}`) beside a new line, in a change that \
             deletes no line: it may stand for current lines past the edit that the new line was meant to follow. \
             Send those lines (or widen the edit to them); a comment meant as written can be reworded \
             (options.elisions: \"literal\" writes markers as they are); nothing was written",
            r.line, r.marker
        ),
        Why::Elsewhere => {
            let first = r.deletes.first().map_or(0, |d| d.0);
            format!(
                "line {} of the new text of `{display}` is an elision marker (`{}`) between two lines that are \
                 neighbours in the current file, so it stands for none there, while the change deletes {} line(s) \
                 elsewhere (the first at line {first}, listed in `elision.deletes`), which it may have been meant to \
                 keep. Send those lines where they belong, or leave the marker out if they are to go; nothing was \
                 written",
                r.line, r.marker, r.deleted
            )
        }
        _ => return None,
    })
}
