//! `readFile` and `writeFile`.

use serde_json::{json, Value};

use super::{cwd, guarded};
use crate::error::fail_value;
use crate::input::request;
use crate::io::source::read_existing;
use crate::io::workspace::{Intent, Workspace};
use crate::text::source;
use crate::txn::edits::{self, WholeFile};
use crate::txn::lexical_abs;

/// `readFile`: a line range of a file plus what an edit needs to know.
pub fn read_file(input: &Value, options: Option<&Value>) -> Value {
    guarded(|| {
        let opts = match request::options(options, cwd) {
            Ok(o) => o,
            Err(f) => return fail_value(&f, None),
        };
        let req = match request::read_request(input) {
            Ok(r) => r,
            Err(f) => return fail_value(&f, None),
        };
        let ws = match Workspace::open(&opts.workspace_root) {
            Ok(w) => w,
            Err(f) => return fail_value(&f, None),
        };
        let lexical = lexical_abs(ws.root(), &req.file_path);
        let (res, src) = match ws
            .resolve(&req.file_path, Intent::Existing)
            .and_then(|res| read_existing(&res, &opts, &req.file_path).map(|(s, _)| (res, s)))
        {
            Ok(l) => l,
            Err(f) => return fail_value(&f, Some(&lexical)),
        };
        let text = src.text();
        let total_lines =
            source::count_newlines(text) + usize::from(!text.is_empty() && !text.ends_with(b"\n"));
        let start = line_offset(text, req.offset);
        let end = match req.limit {
            Some(n) => start + line_offset(&text[start..], n),
            None => text.len(),
        };
        let returned = source::count_newlines(&text[start..end])
            + usize::from(end > start && text[end - 1] != b'\n');
        let mut v = json!({
            "ok": true,
            "file_path": res.abs_path.to_string_lossy(),
            "content": String::from_utf8_lossy(&text[start..end]),
            "offset": req.offset,
            "lines": returned,
            "total_lines": total_lines,
            "sha256": src.sha256(),
            "encoding": src.encoding().name(),
            "bom": !src.encoding().bom().is_empty(),
            "line_ending": src.line_ending().name(),
            "bytes": src.raw().len(),
        });
        if end < text.len() {
            v["next_offset"] = json!(req.offset + returned);
        }
        v
    })
}

/// Byte offset where line `n` (0-based) starts, or the end.
fn line_offset(text: &[u8], n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    memchr::memchr_iter(b'\n', text)
        .nth(n - 1)
        .map(|i| i + 1)
        .unwrap_or(text.len())
}

/// `writeFile`: atomic create-or-replace of a whole file.
pub fn write_file(input: &Value, options: Option<&Value>) -> Value {
    guarded(|| {
        let opts = match request::options(options, cwd) {
            Ok(o) => o,
            Err(f) => return fail_value(&f, None),
        };
        let req = match request::write_request(input) {
            Ok(r) => r,
            Err(f) => return fail_value(&f, None),
        };
        let ws = match Workspace::open(&opts.workspace_root) {
            Ok(w) => w,
            Err(f) => return fail_value(&f, None),
        };
        let whole = WholeFile {
            file_path: &req.file_path,
            content: &req.content,
            expected_sha256: req.expected_sha256.as_deref(),
            create_dirs: req.create_dirs,
        };
        edits::write_whole(&ws, &whole, &opts, req.dry_run)
    })
}
