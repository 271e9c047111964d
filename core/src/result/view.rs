//! The compact view of a result (`options.results: "compact"`): each fact
//! once, in the fewest tokens a model reads back.
//!
//! A model pays for every byte of a tool's answer, and a success is read far
//! more often than any other answer. The full result (the JS API's default)
//! is for programs: sizes before and after, both hashes, absolute paths, how
//! the file was written. A model needs less: where the edit landed and the
//! hash its next call's `expected_sha256` takes. The compact view is the full
//! result with these changes, in the result and in every value nested in it
//! (the files of a batch, its edits):
//!
//! - `file_path` and `move_to` relative to the workspace root (the root
//!   itself is `.`), as the model named them; `files_changed` too;
//! - left out: `sha256_before`, the sizes before and after (`before_chars`,
//!   `after_chars`, `before_bytes`, `after_bytes`); `replacements` when it
//!   is 1 (exact-once, the default); an `edits` list of one beside the
//!   `line_number` that says the same; `write_strategy` when it is `rename`
//!   (the default way; `in_place` and its reason stay, they tell the caller
//!   something); an empty `matched_with` (the edit matched exactly, as an
//!   edit does unless told);
//! - a `closest_match` nested in a failure's parts (the failing file of a
//!   patch, its failing hunk) left out when it is the one the failure itself
//!   gives;
//! - `path` (a file as the patch named it) left out where it says what the
//!   relative `file_path` beside it says;
//! - each file's `diff` left out when the result's own `diff` is theirs put
//!   together (a dry run of a patch, of an undo);
//! - `files` left out when it is one file saying only what the result itself
//!   says (a dry run applied);
//! - `workspace_root` and `journal` (the history's absolute root, which
//!   every relative path already refers to, and where the journal is kept
//!   outside the workspace) left out;
//! - everything else kept, so a failure still carries every fact a retry
//!   needs (code, message, closest match, its lines and kinds).
//!
//! How: the view is made from the typed result, in two steps. [`Compact`]
//! rewrites the values themselves (paths made relative, optional facts said
//! twice cleared), each type knowing its own fields, before the result
//! becomes JSON. What the full view always has but the compact one leaves
//! out (a size, a count of 1) cannot be cleared from a value that is not
//! optional; such a field is declared where it is defined, with
//! `skip_serializing_if` naming one of this module's tests, which hold while
//! [`compactly`] serializes, and with `#[schemars(extend("x-compact" =
//! true))]`: the contract generator keeps it required in the full result and
//! lists it among the fields a compact result may leave out. A renamed field
//! keeps its view; a new field is full-only or kept, as its declaration says.
//!
//! The view is made at the edge (`api`), once per call; it never changes
//! what was written or decided.

use std::cell::Cell;

use super::diagnosis::{ClosestMatch, ContextHint, Diagnosed};
use super::edits::{
    AppliedFile, AppliedOne, AppliedRun, BatchDone, BatchFile, EditReport, PatchDone, WriteDone,
};
use super::failure::{BatchOutcome, Failed, OpFailure};
use super::files::ReadDone;
use super::formats::{FormatDone, FormatFile};
use super::history::{Cleared, HistoryDone, HistoryFile, Listed, UndoFile, Undone};
use super::lines::LinesDone;
use super::text_editor::{EditDone, TextEditorDone, UndoEdit, Viewed};
use super::written::{Diff, Preview, Strategy, WriteStrategy};
use super::Answer;

thread_local! {
    /// Whether this thread is serializing a compact view ([`compactly`]).
    static COMPACT: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` (which serializes a result made [`Compact`]) with the compact
/// view's field tests on, on this thread only.
pub fn compactly<R>(f: impl FnOnce() -> R) -> R {
    struct Off(bool);
    impl Drop for Off {
        fn drop(&mut self) {
            COMPACT.with(|c| c.set(self.0));
        }
    }
    let _off = Off(COMPACT.with(|c| c.replace(true)));
    f()
}

fn on() -> bool {
    COMPACT.with(Cell::get)
}

/// A field the compact view leaves out.
pub(crate) fn omitted<T>(_: &T) -> bool {
    on()
}

/// An optional field the compact view leaves out.
pub(crate) fn absent_or_omitted<T>(v: &Option<T>) -> bool {
    v.is_none() || on()
}

/// A count the compact view leaves out when it is 1.
pub(crate) fn one(n: &usize) -> bool {
    on() && *n == 1
}

/// A list the compact view leaves out when it holds one item.
pub(crate) fn single<T>(v: &[T]) -> bool {
    on() && v.len() == 1
}

/// A text or list [`Compact`] cleared because it said nothing new (a
/// patch's `path` as it resolved, a run's one file repeating the run). The
/// full view never leaves these empty: a path is never "", an applied run
/// has a file.
pub(crate) fn cleared<T: AsRef<[U]>, U>(v: &T) -> bool {
    on() && v.as_ref().is_empty()
}

/// The workspace root a compact view's paths are relative to: as the caller
/// gave it and as its real path, each without a trailing `/`.
pub struct Roots<'a>(pub &'a [&'a str]);

impl Roots<'_> {
    /// `path` relative to the first root it lies in (`.` for a root itself);
    /// left as it is outside them all.
    fn relative(&self, path: &mut String) {
        let rel = self.0.iter().find_map(|root| {
            let rest = path.strip_prefix(root)?;
            // The root `/` was trimmed to "": every absolute path is in it.
            let rest = if rest.is_empty() || root.is_empty() {
                rest
            } else {
                rest.strip_prefix('/')?
            };
            let rest = rest.trim_start_matches('/');
            Some(if rest.is_empty() { "." } else { rest }.to_string())
        });
        if let Some(rel) = rel {
            *path = rel;
        }
    }

    fn relative_opt(&self, path: &mut Option<String>) {
        if let Some(p) = path {
            self.relative(p);
        }
    }
}

/// A result, or a part of one, made its compact view's values.
pub trait Compact {
    /// Makes paths relative to `at` and clears what says nothing new.
    fn compact(&mut self, at: &Roots);
}

impl<T: Compact> Compact for Vec<T> {
    fn compact(&mut self, at: &Roots) {
        self.iter_mut().for_each(|t| t.compact(at));
    }
}

impl<T: Compact> Compact for Option<T> {
    fn compact(&mut self, at: &Roots) {
        if let Some(t) = self {
            t.compact(at);
        }
    }
}

impl<T: Compact> Compact for Answer<T> {
    fn compact(&mut self, at: &Roots) {
        match self {
            Answer::Done(t) => t.compact(at),
            Answer::Failed(f) => {
                f.compact(at);
                if let Some(top) = f.diagnosis.closest_match.clone() {
                    f.given_once(&top);
                }
                f.said_once();
            }
        }
    }
}

/// A matched_with that says the edit matched exactly: left out.
fn exact_said(m: &mut Option<Vec<super::diagnosis::Tolerance>>) {
    if m.as_ref().is_some_and(Vec::is_empty) {
        *m = None;
    }
}

impl Compact for Strategy {
    fn compact(&mut self, _: &Roots) {
        if self.write_strategy == Some(WriteStrategy::Rename) {
            self.write_strategy = None;
        }
    }
}

impl Compact for EditReport {
    fn compact(&mut self, _: &Roots) {
        exact_said(&mut self.matched_with);
    }
}

impl Compact for PatchDone {
    fn compact(&mut self, at: &Roots) {
        at.relative(&mut self.file_path);
        self.edits.compact(at);
        exact_said(&mut self.matched_with);
        self.strategy.compact(at);
    }
}

impl Compact for BatchFile {
    fn compact(&mut self, at: &Roots) {
        self.figures.compact(at);
    }
}

impl Compact for BatchDone {
    fn compact(&mut self, at: &Roots) {
        self.files.compact(at);
        let diffs = self.files.iter_mut().map(|f| &mut f.diff);
        once_in_files(self.preview.as_ref(), diffs);
    }
}

impl Compact for WriteDone {
    fn compact(&mut self, at: &Roots) {
        at.relative(&mut self.file_path);
        self.strategy.compact(at);
    }
}

impl Compact for AppliedFile {
    fn compact(&mut self, at: &Roots) {
        at.relative(&mut self.file_path);
        self.strategy.compact(at);
    }
}

impl Compact for AppliedOne {
    fn compact(&mut self, at: &Roots) {
        at.relative(&mut self.file_path);
    }
}

impl Compact for AppliedRun {
    fn compact(&mut self, at: &Roots) {
        self.one.compact(at);
        self.files.compact(at);
        if let (Some(one), [f]) = (&self.one, self.files.as_slice()) {
            // Every fact the compact file still gives, the result gives.
            let repeated = f.file_path == one.file_path
                && f.created.is_none_or(|c| c == one.created)
                && f.deleted.is_none()
                && f.sha256.as_ref().is_none_or(|s| *s == one.sha256)
                && f.strategy == Strategy::default();
            if repeated {
                self.files.clear();
            }
        }
    }
}

impl Compact for FormatFile {
    fn compact(&mut self, at: &Roots) {
        at.relative_opt(&mut self.file_path);
        at.relative_opt(&mut self.move_to);
        self.strategy.compact(at);
        if self.file_path.as_ref() == Some(&self.path) {
            self.path.clear();
        }
    }
}

impl Compact for FormatDone {
    fn compact(&mut self, at: &Roots) {
        self.files.compact(at);
        let diffs = self.files.iter_mut().map(|f| &mut f.diff);
        once_in_files(self.preview.as_ref(), diffs);
    }
}

impl Compact for HistoryFile {
    fn compact(&mut self, at: &Roots) {
        at.relative(&mut self.file_path);
    }
}

impl Compact for Listed {
    fn compact(&mut self, at: &Roots) {
        if let Listed::Whole(t) = self {
            t.files.compact(at);
        }
    }
}

impl Compact for HistoryDone {
    fn compact(&mut self, at: &Roots) {
        self.transactions.compact(at);
    }
}

impl Compact for UndoFile {
    fn compact(&mut self, at: &Roots) {
        at.relative(&mut self.file_path);
    }
}

impl Compact for Undone {
    fn compact(&mut self, at: &Roots) {
        self.files.compact(at);
        let diffs = self.files.iter_mut().map(|f| &mut f.diff);
        once_in_files(self.preview.as_ref(), diffs);
    }
}

impl Compact for Cleared {
    fn compact(&mut self, _: &Roots) {}
}

impl Compact for LinesDone {
    fn compact(&mut self, at: &Roots) {
        at.relative(&mut self.file_path);
        self.strategy.compact(at);
    }
}

impl Compact for ReadDone {
    fn compact(&mut self, at: &Roots) {
        at.relative(&mut self.file_path);
    }
}

impl Compact for TextEditorDone {
    fn compact(&mut self, at: &Roots) {
        match self {
            TextEditorDone::Viewed(Viewed::File(v)) => at.relative(&mut v.file_path),
            TextEditorDone::Viewed(Viewed::Directory(v)) => at.relative(&mut v.file_path),
            TextEditorDone::Edited(e) => e.compact(at),
            TextEditorDone::Undone(u) => u.compact(at),
        }
    }
}

impl Compact for EditDone {
    fn compact(&mut self, at: &Roots) {
        self.file.compact(at);
    }
}

impl Compact for UndoEdit {
    fn compact(&mut self, at: &Roots) {
        self.file.compact(at);
    }
}

/// Clears each file's `diff` when the result's own (`preview`'s) is all of
/// them put together, in order.
fn once_in_files<'a>(preview: Option<&Preview>, files: impl Iterator<Item = &'a mut Option<Diff>>) {
    let Some(whole) = preview.and_then(|p| p.diff.diff.as_deref()) else {
        return;
    };
    let mut diffs = Vec::new();
    for f in files {
        match f {
            Some(Diff {
                diff: d @ Some(_), ..
            }) => diffs.push(d),
            _ => return,
        }
    }
    let mut rest = whole;
    for d in diffs.iter().filter_map(|d| d.as_deref()) {
        match rest.strip_prefix(d) {
            Some(r) => rest = r,
            None => return,
        }
    }
    if rest.is_empty() {
        diffs.into_iter().for_each(|d| *d = None);
    }
}

impl Compact for Failed {
    fn compact(&mut self, at: &Roots) {
        at.relative_opt(&mut self.file_path);
        if let Some(files) = &mut self.files {
            files.compact(at);
        }
        if let Some(failures) = &mut self.failures {
            failures.compact(at);
        }
        if let Some(changed) = &mut self.files_changed {
            changed.iter_mut().for_each(|p| at.relative(p));
        }
    }
}

impl Compact for BatchOutcome {
    fn compact(&mut self, at: &Roots) {
        match self {
            BatchOutcome::Failed { failure, .. } => failure.compact(at),
            BatchOutcome::Planned { file_path, .. } => at.relative(file_path),
        }
    }
}

impl Compact for OpFailure {
    fn compact(&mut self, at: &Roots) {
        at.relative_opt(&mut self.file_path);
        if self.file_path.as_ref() == Some(&self.path) {
            self.path.clear();
        }
    }
}

impl Failed {
    /// Clears every `closest_match` below this failure equal to `top`, the
    /// one the failure itself gives.
    fn given_once(&mut self, top: &ClosestMatch) {
        for e in self.failed_edits.iter_mut().flatten() {
            once(&mut e.diagnosis, top);
        }
        for o in self.files.iter_mut().flatten() {
            if let BatchOutcome::Failed { failure, .. } = o {
                once(&mut failure.diagnosis, top);
                failure.given_once(top);
            }
        }
        for o in self.failures.iter_mut().flatten() {
            once(&mut o.diagnosis, top);
            for s in o.hunks.iter_mut().chain(o.blocks.iter_mut()).flatten() {
                once(&mut s.diagnosis, top);
            }
        }
    }
}

impl Failed {
    /// Each fact of a format call's failing files and their hunks or
    /// blocks said once: the message, the match lines and the unique
    /// context a file's failure repeats from the call's (its first failing
    /// file's), and a hunk's or block's from its file's, are left out (a
    /// text-editor `str_replace` gave them three times).
    fn said_once(&mut self) {
        let Some(ops) = self.failures.as_mut() else {
            return;
        };
        let top = (
            self.message.as_str(),
            self.match_lines.as_slice(),
            self.diagnosis.unique_context_hint.as_slice(),
        );
        for o in ops.iter_mut() {
            let own = (
                o.message.as_str(),
                o.match_lines.as_slice(),
                o.diagnosis.unique_context_hint.as_slice(),
            );
            for s in o.hunks.iter_mut().chain(o.blocks.iter_mut()).flatten() {
                said_again(
                    (&mut s.message, &mut s.match_lines),
                    &mut s.diagnosis.unique_context_hint,
                    own,
                );
            }
            let lines = said_again(
                (&mut o.message, &mut o.match_lines),
                &mut o.diagnosis.unique_context_hint,
                top,
            );
            if lines && o.match_count == self.match_count {
                o.match_count = None;
            }
        }
    }
}

/// Clears the message, match lines and unique context of a failure that
/// the one above it (`above`) says; whether its match lines were those.
fn said_again(
    (message, lines): (&mut String, &mut Vec<usize>),
    hint: &mut Vec<ContextHint>,
    above: (&str, &[usize], &[ContextHint]),
) -> bool {
    said(message, above.0);
    if hint == above.2 {
        hint.clear();
    }
    let same = lines == above.1;
    if same {
        lines.clear();
    }
    same
}

/// Clears `message` when `above` says it (the same, or it and what the
/// call adds: `; nothing was written`).
fn said(message: &mut String, above: &str) {
    let rest = above.strip_prefix(message.as_str());
    if !message.is_empty() && rest.is_some_and(|r| r.is_empty() || r.starts_with("; ")) {
        message.clear();
    }
}

fn once(d: &mut Diagnosed, top: &ClosestMatch) {
    if d.closest_match.as_ref() == Some(top) {
        d.closest_match = None;
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;
    use serde_json::{json, Value};

    use super::*;
    use crate::error::{ErrorCode, Failure};
    use crate::model::Format;
    use crate::result::diagnosis::Tolerance;
    use crate::result::failure::StepFailure;
    use crate::result::formats::Action;
    use crate::result::marks::True;

    const WS: &[&str] = &["/nonexistent/ws"];

    /// `t`'s compact view as JSON, for a workspace whose roots are `roots`.
    fn view<T: Serialize + Compact>(mut t: T, roots: &[&str]) -> Value {
        t.compact(&Roots(roots));
        compactly(|| serde_json::to_value(&t)).unwrap()
    }

    fn full<T: Serialize>(t: &T) -> Value {
        serde_json::to_value(t).unwrap()
    }

    fn patched(file: &str) -> PatchDone {
        PatchDone {
            ok: True,
            file_path: file.into(),
            replacements: 1,
            line_number: 7,
            before_chars: 10,
            after_chars: 11,
            before_bytes: 10,
            after_bytes: 11,
            edits: vec![report(7, 1)],
            matched_with: Some(Vec::new()),
            original_text: None,
            sha256_before: "a".repeat(64),
            sha256: "b".repeat(64),
            expanded: None,
            syntax: None,
            strategy: Strategy::of(WriteStrategy::Rename, None),
            warnings: Vec::new(),
            preview: None,
        }
    }

    fn report(line_number: usize, replacements: usize) -> EditReport {
        EditReport {
            line_number,
            replacements,
            matched_with: None,
            original_text: None,
        }
    }

    #[test]
    fn a_success_keeps_where_it_landed_and_the_new_hash() {
        let done = patched("/nonexistent/ws/src/a.ts");
        let all = full(&done);
        assert_eq!(all["before_bytes"], 10, "the full view has every field");
        assert_eq!(all["edits"].as_array().map(Vec::len), Some(1));
        assert_eq!(
            view(done, WS),
            json!({"ok": true, "file_path": "src/a.ts", "line_number": 7, "sha256": "b".repeat(64)})
        );
        assert_eq!(
            full(&patched("x"))["replacements"],
            1,
            "the full view again after"
        );
    }

    #[test]
    fn facts_that_say_something_stay() {
        let mut done = patched("/nonexistent/ws/src/a.ts");
        done.replacements = 3;
        done.edits = vec![report(7, 2), report(9, 1)];
        done.strategy = Strategy::of(WriteStrategy::InPlace, Some("the file has ACLs"));
        done.matched_with = Some(vec![Tolerance::LineEndings]);
        let v = view(done, &["/nonexistent/ws/".trim_end_matches('/')]);
        assert_eq!(v["replacements"], 3);
        assert_eq!(
            v["edits"],
            json!([{"line_number": 7, "replacements": 2}, {"line_number": 9}])
        );
        assert_eq!(v["write_strategy"], "in_place");
        assert_eq!(v["matched_with"], json!(["line_endings"]));
        assert_eq!(v["write_strategy_reason"], "the file has ACLs");
    }

    fn failed(code: ErrorCode, file: Option<&str>) -> Failed {
        Failed::new(&Failure::new(code, "m".to_string()), file)
    }

    fn closest(line_number: usize, text: &str) -> ClosestMatch {
        ClosestMatch {
            line_number,
            end_line: line_number,
            similarity: 0.9,
            text: text.into(),
            differences: Vec::new(),
            details: Vec::new(),
            equally_close: Vec::new(),
        }
    }

    fn planned(index: usize, file_path: &str) -> BatchOutcome {
        BatchOutcome::Planned {
            ok: True,
            index,
            file_path: file_path.into(),
            message: "m".into(),
        }
    }

    #[test]
    fn a_failure_keeps_its_diagnosis_and_nested_paths_are_relative() {
        let mut f = failed(
            ErrorCode::SEARCH_BLOCK_NOT_FOUND,
            Some("/nonexistent/ws/a.ts"),
        );
        f.match_count = Some(0);
        f.diagnosis.closest_match = Some(closest(3, "/nonexistent/ws/x"));
        f.files = Some(vec![
            planned(0, "/nonexistent/ws"),
            planned(1, "/nonexistent/wsx/c.ts"),
            planned(2, "/elsewhere/c.ts"),
        ]);
        let v = view(Answer::<PatchDone>::Failed(Box::new(f)), WS);
        assert_eq!(v["file_path"], "a.ts");
        assert_eq!(
            v["closest_match"]["text"], "/nonexistent/ws/x",
            "text is never rewritten"
        );
        assert_eq!(v["files"][0]["file_path"], ".");
        assert_eq!(
            v["files"][1]["file_path"], "/nonexistent/wsx/c.ts",
            "a sibling is not inside"
        );
        assert_eq!(v["files"][2]["file_path"], "/elsewhere/c.ts");
    }

    fn step(index: usize, cm: &ClosestMatch) -> StepFailure {
        StepFailure {
            index,
            patch_line: None,
            line: None,
            code: ErrorCode::SEARCH_BLOCK_NOT_FOUND,
            match_count: 0,
            message: "m".into(),
            match_lines: Vec::new(),
            diagnosis: Diagnosed {
                closest_match: Some(cm.clone()),
                ..Diagnosed::default()
            },
        }
    }

    fn op(path: &str, file_path: Option<&str>) -> OpFailure {
        OpFailure {
            index: 0,
            path: path.into(),
            line: None,
            file_path: file_path.map(str::to_string),
            code: ErrorCode::SEARCH_BLOCK_NOT_FOUND,
            message: "m".into(),
            match_count: None,
            match_lines: Vec::new(),
            diagnosis: Diagnosed::default(),
            hunks: None,
            blocks: None,
        }
    }

    #[test]
    fn a_closest_match_is_given_once() {
        let (cm, other) = (closest(1, "def f():\n"), closest(9, "x\n"));
        let mut o = op("a.py", Some("/nonexistent/ws/a.py"));
        o.diagnosis.closest_match = Some(cm.clone());
        o.hunks = Some(vec![step(0, &cm), step(1, &other)]);
        let mut f = failed(ErrorCode::SEARCH_BLOCK_NOT_FOUND, None);
        f.diagnosis.closest_match = Some(cm.clone());
        f.failures = Some(vec![o]);
        let v = view(Answer::<FormatDone>::Failed(Box::new(f)), WS);
        assert_eq!(v["closest_match"], full(&cm));
        assert!(v["failures"][0].get("closest_match").is_none());
        assert!(v["failures"][0]["hunks"][0].get("closest_match").is_none());
        assert_eq!(v["failures"][0]["hunks"][1]["closest_match"], full(&other));
        assert!(
            v["failures"][0].get("path").is_none(),
            "named as it resolved"
        );
    }

    #[test]
    fn a_format_failure_says_each_fact_once() {
        let hint = crate::result::diagnosis::ContextHint {
            match_line: 1,
            line_number: 1,
            end_line: 1,
            lines_before: 0,
            lines_after: 0,
            search_block: "line one".into(),
        };
        let ambiguous = |message: &str| {
            let mut s = step(0, &closest(1, "x"));
            s.diagnosis.closest_match = None;
            s.code = ErrorCode::SEARCH_BLOCK_AMBIGUOUS;
            s.match_count = 2;
            s.message = message.into();
            s.match_lines = vec![1, 2];
            s.diagnosis.unique_context_hint = vec![hint.clone()];
            s
        };
        let mut o = op("a.txt", Some("/nonexistent/ws/a.txt"));
        o.message = "occurs twice".into();
        o.match_count = Some(2);
        o.match_lines = vec![1, 2];
        o.diagnosis.unique_context_hint = vec![hint.clone()];
        o.blocks = Some(vec![
            ambiguous("occurs twice"),
            ambiguous("block 2 occurs twice"),
        ]);
        let mut f = failed(ErrorCode::SEARCH_BLOCK_AMBIGUOUS, None);
        f.message = "occurs twice; nothing was written".into();
        f.match_count = Some(2);
        f.match_lines = vec![1, 2];
        f.diagnosis.unique_context_hint = vec![hint];
        f.failures = Some(vec![o]);
        let v = view(Answer::<FormatDone>::Failed(Box::new(f)), WS);
        let file = &v["failures"][0];
        for k in [
            "message",
            "match_count",
            "match_lines",
            "unique_context_hint",
        ] {
            assert!(file.get(k).is_none(), "{k}: {v}");
            assert!(
                file["blocks"][0].get(k).is_none() || k == "match_count",
                "{k}: {v}"
            );
        }
        // A block that says something else keeps it.
        assert_eq!(file["blocks"][1]["message"], "block 2 occurs twice");
        assert!(v["match_lines"].is_array() && v["unique_context_hint"].is_array());
    }

    fn format_file(path: &str, file_path: &str, diff: Option<&str>) -> FormatFile {
        FormatFile {
            path: path.into(),
            file_path: Some(file_path.into()),
            action: Action::Update,
            move_to: None,
            created: None,
            before_bytes: Some(1),
            sha256_before: Some("a".into()),
            after_bytes: Some(2),
            sha256: Some("b".into()),
            hunks: None,
            blocks: None,
            line_number: None,
            read_back_matches: None,
            expanded: None,
            syntax: None,
            strategy: Strategy::default(),
            diff: diff.map(|d| Diff {
                diff: Some(d.into()),
                diff_omitted: None,
            }),
        }
    }

    fn formatted(files: Vec<FormatFile>, diff: Option<&str>) -> FormatDone {
        FormatDone {
            ok: True,
            format: Format::ApplyPatch,
            files,
            hunks: None,
            verified: None,
            warnings: Vec::new(),
            message: None,
            preview: diff.map(|d| Preview {
                dry_run: True,
                diff: Diff {
                    diff: Some(d.into()),
                    diff_omitted: None,
                },
                run_id: None,
                expires_in: 60,
                message: None,
            }),
        }
    }

    #[test]
    fn a_patch_file_named_as_it_resolved_is_named_once() {
        let mut moved = format_file("./b.txt", "/nonexistent/ws/b.txt", None);
        moved.move_to = Some("/nonexistent/ws/d/c.txt".into());
        let files = vec![format_file("a.txt", "/nonexistent/ws/a.txt", None), moved];
        let v = view(formatted(files, None), WS);
        assert_eq!(
            v["files"],
            json!([{"file_path": "a.txt", "action": "update", "sha256": "b"},
                   {"path": "./b.txt", "file_path": "b.txt", "action": "update", "move_to": "d/c.txt", "sha256": "b"}])
        );
    }

    #[test]
    fn a_dry_run_gives_its_diff_once() {
        let files = vec![
            format_file("a", "/nonexistent/ws/a", Some("d1")),
            format_file("b", "/nonexistent/ws/b", Some("d2")),
        ];
        let v = view(formatted(files, Some("d1d2")), WS);
        assert_eq!(v["diff"], "d1d2");
        assert!(v["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f.get("diff").is_none()));
        let mut omitted = format_file("b", "/nonexistent/ws/b", None);
        omitted.diff = Some(Diff {
            diff: None,
            diff_omitted: Some("too big".into()),
        });
        let files = vec![format_file("a", "/nonexistent/ws/a", Some("d1")), omitted];
        let v = view(formatted(files, Some("d1")), WS);
        assert_eq!(v["files"][0]["diff"], "d1", "not the whole diff: kept");
        let files = vec![format_file("a", "/nonexistent/ws/a", Some("d1"))];
        let v = view(formatted(files, Some("d1d2")), WS);
        assert_eq!(v["files"][0]["diff"], "d1", "a part of it: kept");
    }

    fn applied(file: &str, files: Vec<AppliedFile>) -> AppliedRun {
        AppliedRun {
            ok: True,
            run_id: "dr_x".into(),
            one: Some(AppliedOne {
                file_path: file.into(),
                created: false,
                after_bytes: 3,
                sha256_before: None,
                sha256: "b".repeat(64),
            }),
            files,
            warnings: Vec::new(),
        }
    }

    fn applied_file(file: &str) -> AppliedFile {
        AppliedFile {
            file_path: file.into(),
            created: Some(false),
            deleted: None,
            after_bytes: Some(3),
            sha256_before: Some("a".repeat(64)),
            sha256: Some("b".repeat(64)),
            strategy: Strategy::of(WriteStrategy::Rename, None),
        }
    }

    #[test]
    fn one_file_repeating_the_result_is_dropped() {
        let run = applied("/nonexistent/ws/a", vec![applied_file("/nonexistent/ws/a")]);
        assert_eq!(
            full(&run)["sha256_before"],
            Value::Null,
            "null in the full view"
        );
        assert_eq!(
            view(run, WS),
            json!({"ok": true, "run_id": "dr_x", "file_path": "a", "created": false, "sha256": "b".repeat(64)})
        );
        let two = vec![
            applied_file("/nonexistent/ws/a"),
            applied_file("/nonexistent/ws/b"),
        ];
        let v = view(applied("/nonexistent/ws/a", two), WS);
        assert_eq!(v["files"].as_array().map(Vec::len), Some(2));
        let mut in_place = applied_file("/nonexistent/ws/a");
        in_place.strategy = Strategy::of(WriteStrategy::InPlace, Some("ACLs"));
        let v = view(applied("/nonexistent/ws/a", vec![in_place]), WS);
        assert_eq!(
            v["files"][0]["write_strategy"], "in_place",
            "says more: kept"
        );
    }

    #[test]
    fn history_and_undo_name_files_relative_to_the_root_only() {
        let h = HistoryDone {
            ok: True,
            workspace_root: "/nonexistent/ws".into(),
            journal: "/state/journal/x".into(),
            enabled: true,
            transactions: Vec::new(),
        };
        assert_eq!(full(&h)["journal"], "/state/journal/x");
        assert_eq!(
            view(h, WS),
            json!({"ok": true, "enabled": true, "transactions": []})
        );
        let mut f = failed(ErrorCode::FILE_CHANGED, Some("/nonexistent/ws/a"));
        f.files_changed = Some(vec![
            "/nonexistent/ws/a".into(),
            "/nonexistent/ws/d/b".into(),
        ]);
        let v = view(Answer::<Undone>::Failed(Box::new(f)), WS);
        assert_eq!(v["files_changed"], json!(["a", "d/b"]));
    }

    #[test]
    fn the_filesystem_root_as_workspace() {
        let done = patched("/etc/hosts");
        assert_eq!(view(done, &[""])["file_path"], "etc/hosts");
    }

    #[test]
    fn the_view_is_on_only_while_compactly_runs() {
        compactly(|| assert!(on()));
        assert!(!on());
        let caught = std::panic::catch_unwind(|| compactly(|| panic!("inside")));
        assert!(caught.is_err());
        assert!(!on(), "a panic inside leaves the full view on");
    }
}
