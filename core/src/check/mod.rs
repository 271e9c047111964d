//! Checks on the new text of a file, run by the pipeline once per written
//! file on its final content (after matching, before the commit), for
//! every entry point and every format alike, so no front-end can skip
//! them. Each check is pure: the old text (decoded, `None` for a new file)
//! and the new text in, a verdict out: keep the new text, write an
//! expanded one (with a report of what was added), or refuse with a typed
//! failure. A NUL byte the caller sent is refused first ([`nul`]). Later checks on the new text (syntax, line endings) belong
//! here too, each a module beside [`elision`], called from [`new_text`].

pub(crate) mod elision;
pub(crate) mod marker;
mod nul;
mod run;
pub(crate) mod syntax;

pub(crate) use marker::Markers;
pub(crate) use run::{marker_in, new_text, Checked, Expansion, Made, Refused};
