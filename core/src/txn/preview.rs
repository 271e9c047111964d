//! What a dry run shows and keeps: each file's diff ([`preview`], omitted
//! past [`MAX_PREVIEW_BYTES`]), the call's whole diff, and the dry run of a
//! call that writes one file ([`Txn::keep_one`]), kept for `applyDryRun`.

use super::diff;
use super::pipeline::{Kept, Txn};
use crate::codec::source::Source;
use crate::model::Options;
use crate::printer;

/// The diff a dry run shows for one file. UTF-8 and byte-level files are
/// diffed as the bytes on disk, so a BOM stays part of the first line and
/// `git apply` matches the file exactly; UTF-16 and legacy-encoded files
/// are diffed as their decoded text (readable, but not applicable to their
/// bytes by `git apply`). `new_text` is the new content as UTF-8 (used for
/// decoded files only), `new_bytes` as written; `None`: the file is removed.
/// `None` when old and new together exceed [`MAX_PREVIEW_BYTES`]: such a
/// diff could not be carried to JavaScript (one string holds at most about
/// 512 MiB) and would be no use to read.
pub(crate) fn preview(
    rel: &str,
    old: Option<&Source>,
    new_text: Option<&[u8]>,
    new_bytes: Option<&[u8]>,
) -> Option<String> {
    let (a, b) = match old {
        Some(s) if s.encoding().is_decoded() => (Some(s.text()), new_text),
        Some(s) => (Some(s.raw()), new_bytes),
        None => (None, new_bytes),
    };
    if a.map_or(0, <[u8]>::len) + b.map_or(0, <[u8]>::len) > MAX_PREVIEW_BYTES {
        return None;
    }
    Some(diff::unified(rel, a, b))
}

/// Old plus new content above which a dry run shows no diff (it reports
/// `diff_omitted` instead; the planned change is still kept for
/// applyDryRun).
pub(crate) const MAX_PREVIEW_BYTES: usize = 64 << 20;

impl Txn<'_> {
    /// The dry run of a call that writes one file (slot 0): its diff, and
    /// `new_bytes` (the planned bytes, `new_text` decoded) kept under a
    /// `run_id` for `applyDryRun`.
    pub(crate) fn keep_one(
        &self,
        old: Option<&Source>,
        new_text: &[u8],
        new_bytes: Vec<u8>,
        opts: &Options,
    ) -> (crate::result::written::Preview, Vec<String>) {
        let d = preview(
            &self.slots[0].res.rel_path,
            old,
            Some(new_text),
            Some(&new_bytes),
        );
        let kept = vec![Kept {
            slot: 0,
            bytes: new_bytes,
            perms_from: None,
            like: None,
        }];
        self.keep_preview(file_diff(d, &mut None), kept, &[], opts)
    }
}

/// A file's preview as its result shows it, appended to the call's whole
/// diff in `all`; an omitted one makes the whole one omitted too.
pub(crate) fn file_diff(
    d: Option<String>,
    all: &mut Option<String>,
) -> crate::result::written::Diff {
    use crate::result::written::Diff;
    match d {
        Some(d) => {
            if let Some(a) = all.as_mut() {
                a.push_str(&d);
            }
            Diff {
                diff: Some(d),
                diff_omitted: None,
            }
        }
        None => {
            *all = None;
            Diff {
                diff: None,
                diff_omitted: Some(diff_omitted_note()),
            }
        }
    }
}

/// The whole call's diff (or why it is omitted).
pub(crate) fn whole_diff(all: Option<String>) -> crate::result::written::Diff {
    use crate::result::written::Diff;
    match all {
        Some(a) => Diff {
            diff: Some(a),
            diff_omitted: None,
        },
        None => Diff {
            diff: None,
            diff_omitted: Some(diff_omitted_note()),
        },
    }
}

/// Why a dry run's diff is missing.
pub(crate) fn diff_omitted_note() -> String {
    printer::diff_omitted(MAX_PREVIEW_BYTES >> 20)
}
