//! The text editor tool (`str_replace_based_edit_tool` semantics) on the
//! engine: `view` of a file (numbered lines, optional range) or a directory
//! (two levels, hidden entries skipped); `create`, `str_replace` and `insert`
//! go through [`crate::txn::ops`] like every other edit (sandbox, exact-once,
//! atomic write, dry run); `undo_edit` restores the file as it was before the
//! last edit made through this tool not undone yet, from the edit journal
//! (`crate::history`): the journal's undo of that transaction, so it
//! survives a restart, is refused with `FILE_CHANGED` if the file is no
//! longer exactly what the edit wrote, and is journaled itself.
//!
//! There is one undo: with the journal off (`options.journal: false`,
//! `PATCH_FILE_JOURNAL=off`) nothing is recorded, and `undo_edit` answers
//! `INVALID_INPUT` saying so and how to turn the journal on.

use std::ffi::OsStr;
use std::path::PathBuf;

use serde_json::Value;

use super::entry::{answer, cwd};
use crate::error::{ErrorCode, Failure};
use crate::history::Journal;
use crate::input::formats::text_editor::{self, EditorCommand};
use crate::input::request::options_and_dry_run;
use crate::io::dir::{Dir, Kind};
use crate::model::Options;
use crate::printer;
use crate::result::formats::FormatDone;
use crate::result::history::Undone;
use crate::result::marks::{flag, True};
use crate::result::text_editor::{
    DirView, DirViewKind, EditCommand, EditDone, FileView, FileViewKind, TextEditorDone,
    UndoCommand, UndoEdit, ViewCommand, Viewed,
};
use crate::result::{Failed, Outcome};
use crate::txn::ops as file_ops;

use crate::io::workspace::{Intent, Workspace};

/// Most entries a directory view lists.
pub(crate) const MAX_LISTING: usize = 1000;

/// `textEditor`: runs one text editor command.
pub(super) fn text_editor(entry: &'static str, input: &Value, options: Option<&Value>) -> Value {
    answer(options, || run(entry, input, options))
}

/// Runs one command: its result, or its failure (naming the command once
/// it is known to be valid).
fn run(entry: &'static str, input: &Value, options: Option<&Value>) -> Outcome<TextEditorDone> {
    let (opts, dry_opt) = options_and_dry_run(options, cwd)?;
    let opts = Options {
        entry: Some(entry),
        ..opts
    };
    let (cmd, dry_in) = text_editor::parse(input)?;
    let dry = dry_in || dry_opt.unwrap_or(false);
    let ws = Workspace::open(&opts.workspace_root)?.from_dir(opts.cwd.as_deref())?;
    let done = match &cmd {
        EditorCommand::View {
            path,
            range,
            max_chars,
        } => view(&ws, path, *range, *max_chars, &opts).map(TextEditorDone::Viewed),
        EditorCommand::Undo { path } => {
            undo(&ws, (path, entry), &opts, dry).map(|u| TextEditorDone::Undone(Box::new(u)))
        }
        _ => edit(&ws, &cmd, &opts, dry).map(|e| TextEditorDone::Edited(Box::new(e))),
    };
    done.map_err(|mut f| {
        f.command = Some(cmd.command());
        f
    })
}

fn edit(ws: &Workspace, cmd: &EditorCommand, opts: &Options, dry: bool) -> Outcome<EditDone> {
    let plan = cmd.plan().expect("a writing command");
    let done = file_ops::execute(ws, &plan, opts, &Journal::for_call(opts), dry)?;
    let command = match cmd {
        EditorCommand::Create { .. } => EditCommand::Create,
        EditorCommand::StrReplace { .. } => EditCommand::StrReplace,
        _ => EditCommand::Insert,
    };
    let mut out = one_file(done, command);
    if !dry {
        if let (Some(path), Some(line)) = (out.file.file_path.as_deref(), out.file.line_number) {
            let count = match cmd {
                EditorCommand::Insert { text, .. } => text.lines().count().max(1),
                EditorCommand::StrReplace { new, .. } => new.lines().count().max(1),
                _ => 1,
            };
            out.snippet = snippet(ws, path, line, count, opts);
        }
    }
    Ok(out)
}

/// The one file's result as the top-level result. A dry run's diff of the
/// file is the whole call's diff: it is given once, as the preview's.
fn one_file(done: FormatDone, command: EditCommand) -> EditDone {
    let FormatDone {
        ok,
        format,
        files,
        hunks,
        verified,
        warnings,
        message,
        mut preview,
    } = done;
    // A text editor command changes no file through hunks, and its blocks
    // are not read back.
    debug_assert!(hunks.is_none() && verified.is_none() && message.is_none());
    let mut file = files.into_iter().next().expect("a command plans one file");
    if let (Some(p), Some(d)) = (preview.as_mut(), file.diff.take()) {
        p.diff = d;
    }
    EditDone {
        ok,
        format,
        file,
        warnings,
        preview,
        snippet: None,
        command,
    }
}

/// `cat -n` style numbered lines.
fn numbered(text: &str, first: usize) -> String {
    let mut s = String::new();
    for (i, l) in text.split_inclusive('\n').enumerate() {
        let l = l.strip_suffix('\n').unwrap_or(l);
        let l = l.strip_suffix('\r').unwrap_or(l);
        // data: a line-numbered line of the view
        s.push_str(&format!("{:>6}\t{l}\n", first + i));
    }
    s
}

/// Lines around an edit (4 before, 4 after), numbered.
fn snippet(
    ws: &Workspace,
    path: &str,
    line: usize,
    count: usize,
    opts: &Options,
) -> Option<String> {
    let res = ws.resolve(path, Intent::Existing).ok()?;
    let (file, m) = res.dir.open_file(&res.name).ok()?;
    if m.size > opts.max_file_bytes {
        return None;
    }
    let src = crate::io::source::read(file, m.size, path).ok()?;
    let text = String::from_utf8_lossy(src.text());
    let start = line.saturating_sub(4).max(1);
    let end = line + count + 3;
    let body: String = text
        .split_inclusive('\n')
        .skip(start - 1)
        .take(end + 1 - start)
        .collect();
    Some(numbered(&body, start))
}

fn view(
    ws: &Workspace,
    path: &str,
    range: Option<(usize, Option<usize>)>,
    max_chars: Option<usize>,
    opts: &Options,
) -> Outcome<Viewed> {
    let res = match ws.resolve(path, Intent::Existing) {
        Ok(r) => r,
        Err(f)
            if f.code == ErrorCode::TARGET_IS_DIRECTORY
                || (f.code == ErrorCode::INVALID_INPUT && path_names_dir(path)) =>
        {
            if range.is_some() {
                return Err(Failure::invalid(printer::view_range_on_directory()).into());
            }
            return list_dir(ws, path).map(Viewed::Directory);
        }
        Err(f) => return Err(about(&f, &ws.root().join(path).to_string_lossy())),
    };
    let abs = res.abs_path.to_string_lossy().into_owned();
    let (file, m) = match res.dir.open_file(&res.name) {
        Ok(x) => x,
        Err(e) => {
            return Err(about(
                &Failure::new(
                    ErrorCode::FILE_READ_ERROR,
                    printer::cannot_open(path, &e.to_string()),
                ),
                &abs,
            ))
        }
    };
    if m.size > opts.max_file_bytes {
        let f = Failure::new(
            ErrorCode::FILE_TOO_LARGE,
            printer::over_max_file_bytes(path, m.size, opts.max_file_bytes),
        );
        return Err(about(&f, &abs));
    }
    let src = match crate::io::source::read(file, m.size, path) {
        Ok(s) => s,
        Err(f) => return Err(about(&f, &abs)),
    };
    let text = String::from_utf8_lossy(src.text());
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total = lines.len();
    let (start, end) = match range {
        None => (1, total),
        Some((s, e)) => {
            if s > total.max(1) {
                return Err(about(
                    &Failure::invalid(printer::view_past_end(s, total)),
                    &abs,
                ));
            }
            (s, e.unwrap_or(total).min(total))
        }
    };
    let body: String = lines
        .iter()
        .skip(start - 1)
        .take((end + 1).saturating_sub(start))
        .copied()
        .collect();
    let mut content = numbered(&body, start);
    let mut truncated = false;
    let mut end = end;
    if let Some(max) = max_chars {
        if content.chars().count() > max {
            let shown;
            (content, shown) = whole_lines_within(&content, max);
            end = start + shown - 1;
            truncated = true;
        }
    }
    Ok(Viewed::File(FileView {
        ok: True,
        kind: FileViewKind::File,
        file_path: abs,
        content,
        start_line: start,
        end_line: end,
        total_lines: total,
        sha256: src.sha256(),
        encoding: src.encoding().name(),
        line_ending: src.file_line_ending(),
        truncated: flag(truncated),
        command: ViewCommand::View,
    }))
}

/// The numbered lines of `content` that fit in `max` characters, whole,
/// and how many (a line cut short would show text the file does not have
/// as a line's whole, and `end_line` would claim it); the first line cut
/// at `max` when not even it fits.
fn whole_lines_within(content: &str, max: usize) -> (String, usize) {
    let mut used = 0;
    let mut upto = 0;
    let mut shown = 0;
    for line in content.split_inclusive('\n') {
        let n = line.chars().count();
        if used + n > max {
            break;
        }
        used += n;
        upto += line.len();
        shown += 1;
    }
    if shown == 0 {
        return (content.chars().take(max).collect(), 1);
    }
    (content[..upto].to_string(), shown)
}

/// The failure `f` about the file `abs`.
fn about(f: &Failure, abs: &str) -> Box<Failed> {
    Box::new(Failed::new(f, Some(abs)))
}

fn path_names_dir(path: &str) -> bool {
    path.ends_with('/') || path.ends_with('\\') || path == "." || path.ends_with("/.")
}

/// A directory's handle, through the sandbox: a name that does not exist
/// inside it is resolved for planning, which yields the directory itself.
fn open_dir(ws: &Workspace, path: &str) -> Result<(Dir, PathBuf), Failure> {
    let mut rnd = [0u8; 8];
    let _ = getrandom::fill(&mut rnd);
    // data: the probe file name, in hex
    let probe: String = rnd.iter().map(|b| format!("{b:02x}")).collect();
    let base = path.trim_end_matches(['/', '\\']);
    let p = if base.is_empty() || base == "." {
        // data: the probe file name
        format!(".pft-view-{probe}")
    } else {
        // data: the probe file path
        format!("{base}/.pft-view-{probe}")
    };
    let r = ws.resolve(&p, Intent::Plan { create_dirs: false })?;
    let abs = r
        .abs_path
        .parent()
        .map(|p| p.to_path_buf())
        .unwrap_or_else(|| ws.root().to_path_buf());
    Ok((r.dir, abs))
}

fn list_dir(ws: &Workspace, path: &str) -> Outcome<DirView> {
    let (dir, abs) = match open_dir(ws, path) {
        Ok(d) => d,
        Err(f) => return Err(about(&f, &ws.root().join(path).to_string_lossy())),
    };
    let mut entries: Vec<String> = Vec::new();
    let mut truncated = false;
    walk(&dir, "", 1, &mut entries, &mut truncated);
    let mut content = String::new();
    for e in &entries {
        content.push_str(e);
        content.push('\n');
    }
    Ok(DirView {
        ok: True,
        kind: DirViewKind::Directory,
        file_path: abs.to_string_lossy().into_owned(),
        entries,
        content,
        truncated: flag(truncated),
        command: ViewCommand::View,
    })
}

/// Lists `dir` (then one level below), hidden names skipped, sorted.
fn walk(dir: &Dir, prefix: &str, depth: usize, out: &mut Vec<String>, truncated: &mut bool) {
    let Ok(mut names) = dir.entries() else { return };
    names.sort();
    for n in names {
        let Some(s) = n.to_str() else { continue };
        if s.starts_with('.') {
            continue;
        }
        if out.len() >= MAX_LISTING {
            *truncated = true;
            return;
        }
        let is_dir = matches!(dir.stat(OsStr::new(s)), Ok(Some(m)) if m.kind == Kind::Dir);
        // data: a listed path
        let rel = format!("{prefix}{s}");
        out.push(if is_dir {
            // data: a listed directory
            format!("{rel}/")
        } else {
            rel.clone()
        });
        if is_dir && depth < 2 {
            if let Ok(sub) = dir.open_dir(OsStr::new(s)) {
                // data: a listed directory
                walk(&sub, &format!("{rel}/"), depth + 1, out, truncated);
            }
        }
    }
}

/// `undo_edit` through the edit journal: the newest text-editor edit of
/// the file not undone yet, undone as the journal undoes a transaction.
fn undo(
    ws: &Workspace,
    (path, entry): (&str, &'static str),
    opts: &Options,
    dry: bool,
) -> Outcome<UndoEdit> {
    let res = match ws.resolve(path, Intent::Plan { create_dirs: true }) {
        Ok(r) => r,
        Err(f) => return Err(about(&f, &ws.root().join(path).to_string_lossy())),
    };
    let abs = res.abs_path.to_string_lossy().into_owned();
    if !opts.journal.enabled {
        return Err(about(
            &Failure::invalid(printer::undo_edit_journal_off(path)),
            &abs,
        ));
    }
    let Some(crate::history::FileUndo {
        outcome,
        remaining: left,
        created,
    }) = crate::history::undo_file(ws, opts, &res.rel_path, entry, dry)
    else {
        return Err(about(
            &Failure::invalid(printer::undo_edit_nothing(path)),
            &abs,
        ));
    };
    let Undone {
        ok,
        undone,
        redo,
        files,
        id,
        warnings,
        mut preview,
    } = outcome?;
    // The file's figures at the top level; a dry run's diff of it is the
    // whole undo's diff, given once, as the preview's.
    let mut file = files
        .into_iter()
        .next()
        .expect("an edit of the file was undone");
    file.file_path = abs;
    if let (Some(p), Some(d)) = (preview.as_mut(), file.diff.take()) {
        p.diff = d;
    }
    Ok(UndoEdit {
        ok,
        undone,
        redo,
        file,
        id,
        warnings,
        preview,
        removed: created,
        undo_remaining: left,
        command: UndoCommand::UndoEdit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_matches_cat_n() {
        assert_eq!(numbered("a\r\nb", 9), "     9\ta\n    10\tb\n");
    }

    /// A view cut at `max_characters` ends on a whole line, and says which
    /// (it showed `     2\tli` with `end_line` 4: a line the file does not
    /// hold, the rest claimed shown).
    #[test]
    fn a_cut_view_ends_on_a_whole_line() {
        let c = numbered("line one\nline two\nline three\n", 1);
        assert_eq!(whole_lines_within(&c, 25), ("     1\tline one\n".into(), 1));
        assert_eq!(
            whole_lines_within(&c, 32),
            ("     1\tline one\n     2\tline two\n".into(), 2)
        );
        // Not even the first line fits: it is cut, and is the one shown.
        assert_eq!(whole_lines_within(&c, 9), ("     1\tli".into(), 1));
        let root = tempfile::tempdir().unwrap();
        std::fs::write(
            root.path().join("v.txt"),
            "line one\nline two\nline three\nline four\n",
        )
        .unwrap();
        let r = crate::api::text_editor(
            &serde_json::json!({"command": "view", "path": "v.txt", "view_range": [3, -1], "max_characters": 25}),
            Some(&serde_json::json!({"workspaceRoot": root.path()})),
        );
        assert_eq!(r["content"], "     3\tline three\n", "{r}");
        assert_eq!(r["end_line"], 3, "{r}");
        assert_eq!(r["truncated"], true, "{r}");
    }
}
