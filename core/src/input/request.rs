//! Input normalization: whatever spelling a caller used (snake_case,
//! camelCase, the aliases of other edit tools) becomes one typed request, or
//! an `INVALID_INPUT` failure that names the offending field.
//!
//! Each request is declared as `#[derive(Deserialize)]` shapes (with
//! `request_shape!`, which lists a field's spellings once) and read
//! through the adapter of `input::fields`, which keeps what serde
//! alone would lose: `null` as absent, the same field spelt twice accepted
//! when equal, messages in the caller's spelling. What serde cannot say
//! stays here as plain code after the shapes are read: rules between fields
//! (`edits` or a single pair, a count or `replace_all`), bounds on values,
//! and fields of several JSON types (`match`, `journal`, `id`).
//!
//! Downstream of this module, spellings survive only as an edit's [`Said`]:
//! the names its messages use, so that a caller who sent `oldText` reads
//! `oldText` back, never a name it did not use. Unknown fields are refused
//! rather than ignored: a misspelt `serach_block` silently dropped would
//! turn into a confusing "missing field" or, worse, a different edit. The
//! refusal names the misspelt field as sent, with the accepted name nearest
//! to it, and comes before any complaint that a required field is missing.

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::codec::source::Encoding;
use crate::error::Failure;
pub(crate) use crate::input::fields::closest_name;
#[cfg(test)]
use crate::input::fields::edit_distance;
use crate::input::fields::{kind, request_shape, short, spellings, Fields, Shape, Whole};
use crate::input::formats::apply_patch::{Operation, OperationKind};
use crate::matching::anchors::{read_tag, tag_len, Anchor};
use crate::matching::line_edits::{LineEdit, LineOp};
use crate::model::*;
use crate::printer::{self, shown};

/// A `patchFile` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchRequest {
    pub(crate) file: FileEdits,
    pub(crate) dry_run: bool,
}

/// A `batchPatchFiles` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchRequest {
    pub(crate) files: Vec<FileEdits>,
    pub(crate) dry_run: bool,
}

/// A `readFile` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRequest {
    pub(crate) file_path: String,
    pub(crate) offset: usize,
    pub(crate) limit: Option<usize>,
    /// Tag each line `LINE#ID|` and keep a snapshot for `editLines`.
    pub(crate) anchors: bool,
}

/// A `writeFile` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteRequest {
    pub(crate) file_path: String,
    pub(crate) content: String,
    pub(crate) expected_sha256: Option<String>,
    pub(crate) create_dirs: bool,
    pub(crate) dry_run: bool,
    /// `encoding: "utf-8"`: write UTF-8 whatever the file holds now, knowingly
    /// replacing a file that is not valid UTF-8. `None`: an existing file keeps
    /// its encoding, and one that is not UTF-8 is refused.
    pub(crate) encoding: Option<Encoding>,
    /// `line_endings: "as_sent"`: write the content's line breaks as sent.
    /// By default (`false`) an existing file whose line breaks are all LF or
    /// all CRLF keeps them.
    pub(crate) line_endings_as_sent: bool,
}

/// An `applyDryRun` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyRequest {
    pub(crate) run_id: String,
}

// ---------------------------------------------------------------------------
// The shapes. Fields of several requests (`file_path`, `expected_sha256`,
// `dry_run`) are shapes of their own, taken by each request that has them.
// A field read as raw JSON is an `IgnoredAny` named `_…`.

request_shape! {
    /// The file a request names.
    struct PathShape {
        file_path: String = "file_path" | "filePath"; required "a string",
    }
}

request_shape! {
    /// The hash the file must have before a write.
    struct ShaShape {
        expected_sha256: Option<Sha256> = "expected_sha256" | "expectedSha256",
    }
}

request_shape! {
    /// Preview instead of writing.
    struct DryShape {
        dry_run: Option<bool> = "dry_run" | "dryRun",
    }
}

request_shape! {
    /// One edit: its two texts under the names of every tool we accept
    /// (ours, camelCase, Anthropic's `old_str`, OpenAI-style `old_string`,
    /// MCP filesystem's `oldText`), paired by position, and its count.
    struct EditShape {
        search: Option<String> =
            "search_block" | "searchBlock" | "search" | "oldText" | "old_string" | "old_str",
        replace: Option<String> =
            "replace_block" | "replaceBlock" | "replace" | "newText" | "new_string" | "new_str",
        expected: Option<Whole> = "expected_replacements" | "expectedReplacements",
        all: Option<bool> = "replace_all" | "replaceAll",
    }
}

request_shape! {
    /// The rest of one file's edits: a `match` mode and an `edits` list
    /// (read by hand: `match` is a string or a list, `edits` an array of
    /// [`EditShape`]s, each with its own label).
    struct FileShape {
        _match_mode: Option<IgnoredAny> = "match",
        _edits: Option<IgnoredAny> = "edits",
    }
}

const SEARCH_KEYS: &[&str] = spellings(EditShape::FIELDS, "search_block");
const REPLACE_KEYS: &[&str] = spellings(EditShape::FIELDS, "replace_block");
#[cfg(test)]
const PATH_KEYS: &[&str] = spellings(PathShape::FIELDS, "file_path");
const EXPECTED_KEYS: &[&str] = spellings(EditShape::FIELDS, "expected_replacements");
const ALL_KEYS: &[&str] = spellings(EditShape::FIELDS, "replace_all");
const DRY_KEYS: &[&str] = spellings(DryShape::FIELDS, "dry_run");

/// `expected_sha256`: 64 hex digits, either case, kept lowercase.
#[derive(Debug)]
struct Sha256(String);

impl<'de> serde::Deserialize<'de> for Sha256 {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let lower = String::deserialize(d)?.trim().to_ascii_lowercase();
        if lower.len() == 64 && lower.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(Sha256(lower))
        } else {
            Err(serde::de::Error::custom(
                "`expected_sha256` must be 64 hex digits (the `sha256` of an earlier result)",
            ))
        }
    }
}

fn sha(f: &mut Fields<'_>) -> Result<Option<String>, Failure> {
    let ShaShape { expected_sha256 } = f.take()?;
    Ok(expected_sha256.map(|Sha256(s)| s))
}

fn dry_run(f: &mut Fields<'_>) -> Result<bool, Failure> {
    let DryShape { dry_run } = f.take()?;
    Ok(dry_run.unwrap_or(false))
}

/// An edit's count, from its two fields as given under `said`'s names.
fn count(
    what: &str,
    expected: Option<Whole>,
    all: Option<bool>,
    said: &Said,
) -> Result<Count, Failure> {
    let (e, a) = (said.expected, said.all);
    Ok(match (expected, all) {
        (Some(_), Some(true)) => return Err(Failure::invalid(printer::count_and_all(what, e, a))),
        (Some(Whole(0)), _) => return Err(Failure::invalid(printer::count_zero(what, e))),
        // An explicit count, even 1, is checked as a count: a different
        // number of occurrences is REPLACEMENT_COUNT_MISMATCH.
        (Some(Whole(n)), _) => Count::Exactly(usize::try_from(n).unwrap_or(usize::MAX)),
        (None, Some(true)) => Count::All,
        (None, _) => Count::One,
    })
}

/// The names an edit's messages use: each text field as given; a missing
/// text in the spelling of its pair (`newText` beside `oldText`; the
/// spellings are paired by position); a count field given as given, one not
/// given in the style of the texts (camelCase or snake_case).
fn said(fields: &Fields<'_>) -> Said {
    let index = |keys: &[&'static str]| {
        let given = fields.spelling(keys)?;
        keys.iter().position(|&k| k == given)
    };
    let (search, replace) = (index(SEARCH_KEYS), index(REPLACE_KEYS));
    let pair = search.or(replace).unwrap_or(0);
    let search_key = SEARCH_KEYS[search.unwrap_or(pair)];
    let camel = search_key.bytes().any(|b| b.is_ascii_uppercase());
    // The texts are given in their own style (camel case or snake case).
    Said {
        search: search_key,
        replace: REPLACE_KEYS[replace.unwrap_or(pair)],
        expected: fields
            .spelling(EXPECTED_KEYS)
            .unwrap_or(EXPECTED_KEYS[usize::from(camel)]),
        all: fields
            .spelling(ALL_KEYS)
            .unwrap_or(ALL_KEYS[usize::from(camel)]),
    }
}

fn edit_pair(fields: &mut Fields<'_>) -> Result<Edit, Failure> {
    let EditShape {
        search,
        replace,
        expected,
        all,
    } = fields.take()?;
    let said = said(fields);
    let what = fields.what;
    let count = count(what, expected, all, &said)?;
    let Some(search) = search else {
        return Err(fields.missing(
            SEARCH_KEYS,
            Failure::invalid(printer::search_missing(what, said.search)),
        ));
    };
    if search.is_empty() {
        return Err(Failure::invalid(printer::search_empty(what, said.search)));
    }
    let Some(replace) = replace else {
        return Err(fields.missing(
            REPLACE_KEYS,
            Failure::invalid(printer::replace_missing(what, said.replace)),
        ));
    };
    Ok(Edit {
        search,
        replace,
        count,
        said,
    })
}

/// The items of an `edits` array, each read as an edit of its own.
fn edit_list(list: &Value, what: &str) -> Result<Vec<Edit>, Failure> {
    let Value::Array(items) = list else {
        return Err(Failure::invalid(printer::edits_not_array(what, kind(list))));
    };
    if items.is_empty() {
        return Err(Failure::invalid(printer::edits_empty(what)));
    }
    if items.len() > MAX_EDITS {
        return Err(Failure::invalid(printer::too_many_edits(what, MAX_EDITS)));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let label = printer::item_label("edits", i);
            let mut e = Fields::new(item, &label)?;
            let edit = edit_pair(&mut e)?;
            e.finish()?;
            Ok(edit)
        })
        .collect()
}

/// Reads the edits of one file: either `edits: [...]` or a single pair. The
/// caller refuses what is left of the object.
fn file_edits(f: &mut Fields<'_>) -> Result<FileEdits, Failure> {
    let PathShape { file_path } = f.take()?;
    let expected_sha256 = sha(f)?;
    let FileShape { .. } = f.take()?;
    let what = f.what;
    let match_mode = match f.raw(&["match"]) {
        None => None,
        Some(v) => Some(
            MatchMode::from_json(v)
                .map_err(|e| Failure::invalid(printer::under(what, printer::bad_match(&e))))?,
        ),
    };
    let edits = match f.raw(&["edits"]) {
        Some(list) => {
            // Given as null too: an unknown field it is not (the schema lists it).
            if EditShape::FIELDS.iter().any(|k| f.given(k.spellings)) {
                return Err(Failure::invalid(printer::edits_and_pair(what)));
            }
            edit_list(list, what)?
        }
        None => vec![edit_pair(f)?],
    };
    Ok(FileEdits {
        file_path,
        edits,
        expected_sha256,
        match_mode,
    })
}

/// Normalizes a `patchFile` input.
pub fn patch_request(value: &Value) -> Result<PatchRequest, Failure> {
    let mut f = Fields::new(value, "input")?;
    let dry_run = dry_run(&mut f)?;
    let file = file_edits(&mut f)?;
    f.finish()?;
    Ok(PatchRequest { file, dry_run })
}

request_shape! {
    /// A `batchPatchFiles` call besides `dry_run`: `files`, an array of
    /// per-file edits read by hand, each with its own label.
    struct BatchShape {
        _files: Option<IgnoredAny> = "files",
    }
}

/// Normalizes a `batchPatchFiles` input.
pub fn batch_request(value: &Value) -> Result<BatchRequest, Failure> {
    let mut f = Fields::new(value, "input")?;
    let dry_run = dry_run(&mut f)?;
    let BatchShape { .. } = f.take()?;
    let files = match f.raw(&["files"]) {
        Some(Value::Array(items)) => items,
        Some(v) => return Err(Failure::invalid(printer::files_not_array(kind(v)))),
        None => return Err(Failure::invalid(printer::files_missing())),
    };
    f.finish()?;
    if files.is_empty() {
        return Err(Failure::invalid(printer::files_empty()));
    }
    if files.len() > MAX_BATCH_FILES {
        return Err(Failure::invalid(printer::too_many_files(MAX_BATCH_FILES)));
    }
    let files = files
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let label = printer::item_label("files", i);
            let mut f = Fields::new(v, &label)?;
            let file = file_edits(&mut f)?;
            f.finish()?;
            Ok(file)
        })
        .collect::<Result<Vec<_>, Failure>>()?;
    Ok(BatchRequest { files, dry_run })
}

request_shape! {
    /// A `readFile` call besides its path.
    struct ReadShape {
        offset: Option<Whole> = "offset",
        limit: Option<Whole> = "limit",
        anchors: Option<bool> = "anchors",
    }
}

/// Normalizes a `readFile` input.
pub fn read_request(value: &Value) -> Result<ReadRequest, Failure> {
    let mut f = Fields::new(value, "input")?;
    let PathShape { file_path } = f.take()?;
    let ReadShape {
        offset,
        limit,
        anchors,
    } = f.take()?;
    let limit = match limit {
        Some(Whole(0)) => return Err(Failure::invalid(printer::read_limit_zero())),
        n => n.map(|Whole(n)| usize::try_from(n).unwrap_or(usize::MAX)),
    };
    f.finish()?;
    Ok(ReadRequest {
        file_path,
        offset: offset.map_or(0, |Whole(n)| n as usize),
        limit,
        anchors: anchors.unwrap_or(false),
    })
}

request_shape! {
    /// A `writeFile` call's text.
    struct ContentShape {
        content: String = "content"; required "a string",
    }
}

request_shape! {
    /// A `writeFile` call's settings; `encoding` is read by hand (its one
    /// accepted value gets a message of its own for any other).
    struct WriteShape {
        create_dirs: Option<bool> = "create_dirs" | "createDirs",
        _encoding: Option<IgnoredAny> = "encoding",
        _line_endings: Option<IgnoredAny> = "line_endings" | "lineEndings",
    }
}

/// Normalizes a `writeFile` input.
pub fn write_request(value: &Value) -> Result<WriteRequest, Failure> {
    let mut f = Fields::new(value, "input")?;
    let PathShape { file_path } = f.take()?;
    let ContentShape { content } = f.take()?;
    let expected_sha256 = sha(&mut f)?;
    let WriteShape { create_dirs, .. } = f.take()?;
    let dry_run = dry_run(&mut f)?;
    let encoding = match f.raw(&["encoding"]) {
        None => None,
        Some(Value::String(s)) if s == "utf-8" => Some(Encoding::Utf8),
        Some(v) => return Err(Failure::invalid(printer::encoding_not_utf8(&short(v)))),
    };
    let line_endings_as_sent = match f.raw(&["line_endings", "lineEndings"]) {
        None => false,
        Some(Value::String(s)) if s == "as_sent" => true,
        Some(v) => {
            return Err(Failure::invalid(printer::line_endings_not_as_sent(&short(
                v,
            ))))
        }
    };
    f.finish()?;
    Ok(WriteRequest {
        file_path,
        content,
        expected_sha256,
        create_dirs: create_dirs.unwrap_or(true),
        dry_run,
        encoding,
        line_endings_as_sent,
    })
}

request_shape! {
    /// An `applyDryRun` call as an object.
    struct ApplyShape {
        run_id: String = "run_id" | "runId"; required "a string",
    }
}

/// Normalizes an `applyDryRun` input (an object with `run_id`, or the id itself).
pub fn apply_request(value: &Value) -> Result<ApplyRequest, Failure> {
    if let Value::String(s) = value {
        return Ok(ApplyRequest { run_id: s.clone() });
    }
    let mut f = Fields::new(value, "input")?;
    let ApplyShape { run_id } = f.take()?;
    f.finish()?;
    Ok(ApplyRequest { run_id })
}

request_shape! {
    /// The options object. Bounds and choices are checked as each field is
    /// read (`deserialize_with`), so the first fault of the object is the
    /// one reported. `journal` is read by hand: it is a boolean, a directory
    /// or an object.
    struct OptionsShape {
        workspace_root: Option<String> = "workspaceRoot" | "workspace_root",
        cwd: Option<String> = "cwd",
        durable: Option<bool> = "durable",
        max_file_bytes: Option<Whole> = "maxFileBytes" | "max_file_bytes",
        #[serde(default, deserialize_with = "hard_links")]
        hard_links: Option<HardLinks> = "hardLinks" | "hard_links",
        cancel_token: Option<Whole> = "cancelToken" | "cancel_token",
        #[serde(default, deserialize_with = "timeout_ms")]
        timeout_ms: Option<u64> = "timeoutMs" | "timeout_ms",
        #[serde(default, deserialize_with = "lock_wait_ms")]
        lock_wait_ms: Option<u64> = "lockWaitMs" | "lock_wait_ms",
        #[serde(default, deserialize_with = "dry_run_ttl")]
        dry_run_ttl_seconds: Option<u64> = "dryRunTtlSeconds" | "dry_run_ttl_seconds",
        #[serde(default, deserialize_with = "results")]
        results: Option<ResultView> = "results",
        _default_match: Option<IgnoredAny> = "defaultMatch" | "default_match",
        #[serde(default, deserialize_with = "elisions")]
        elisions: Option<Elisions> = "elisions",
        #[serde(default, deserialize_with = "syntax")]
        syntax: Option<SyntaxGuard> = "syntax",
        _journal: Option<IgnoredAny> = "journal",
        // The JS API watches an AbortSignal and never hands it on: one that
        // reaches the engine is something else, or came to a synchronous call.
        signal: Option<IgnoredAny> = "signal",
    }
}

fn hard_links<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<HardLinks>, D::Error> {
    Ok(Some(match String::deserialize(d)?.as_str() {
        "refuse" => HardLinks::Refuse,
        "split" => HardLinks::Split,
        "keep" => HardLinks::Keep,
        other => {
            return Err(serde::de::Error::custom(printer::not_a_choice(
                "hardLinks",
                "\"refuse\", \"split\" or \"keep\"",
                &shown(other),
            )))
        }
    }))
}

fn results<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<ResultView>, D::Error> {
    Ok(Some(match String::deserialize(d)?.as_str() {
        "full" => ResultView::Full,
        "compact" => ResultView::Compact,
        other => {
            return Err(serde::de::Error::custom(printer::not_a_choice(
                "results",
                "\"full\" or \"compact\"",
                &shown(other),
            )))
        }
    }))
}

fn elisions<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Elisions>, D::Error> {
    Ok(Some(match String::deserialize(d)?.as_str() {
        "expand" => Elisions::Expand,
        "literal" => Elisions::Literal,
        other => {
            return Err(serde::de::Error::custom(printer::not_a_choice(
                "elisions",
                "\"expand\" or \"literal\"",
                other,
            )))
        }
    }))
}

fn syntax<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<SyntaxGuard>, D::Error> {
    Ok(Some(match String::deserialize(d)?.as_str() {
        "warn" => SyntaxGuard::Warn,
        "refuse" => SyntaxGuard::Refuse,
        "off" => SyntaxGuard::Off,
        other => {
            return Err(serde::de::Error::custom(printer::not_a_choice(
                "syntax",
                "\"warn\", \"refuse\" or \"off\"",
                &shown(other),
            )))
        }
    }))
}

/// A [`Whole`] within `range`, or the error `message`.
fn bounded<'de, D: serde::Deserializer<'de>>(
    d: D,
    range: std::ops::RangeInclusive<u64>,
    message: impl FnOnce() -> String,
) -> Result<Option<u64>, D::Error> {
    let Whole(n) = Whole::deserialize(d)?;
    if range.contains(&n) {
        Ok(Some(n))
    } else {
        Err(serde::de::Error::custom(message()))
    }
}

fn timeout_ms<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    bounded(d, 1..=u64::MAX, || "`timeoutMs` must be at least 1".into())
}

fn lock_wait_ms<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    bounded(d, 0..=MAX_LOCK_WAIT_MS, || {
        printer::lock_wait_over(MAX_LOCK_WAIT_MS)
    })
}

fn dry_run_ttl<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    bounded(d, 1..=MAX_DRY_RUN_TTL_SECS, || {
        printer::dry_run_ttl_out_of_range(MAX_DRY_RUN_TTL_SECS)
    })
}

/// Normalizes the options object; `cwd` is the default workspace root.
pub fn options(
    value: Option<&Value>,
    cwd: impl FnOnce() -> std::io::Result<std::path::PathBuf>,
) -> Result<Options, Failure> {
    state_dir_from_env()?;
    let mut opts = Options {
        workspace_root: std::path::PathBuf::new(),
        cwd: None,
        durable: true,
        max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        dry_run_ttl_secs: DEFAULT_DRY_RUN_TTL_SECS,
        hard_links: HardLinks::Refuse,
        lock_wait_ms: DEFAULT_LOCK_WAIT_MS,
        cancel: Cancel::default(),
        journal: journal_from_env()?,
        entry: None,
        results: ResultView::Full,
        default_match: MatchMode::EXACT,
        elisions: Elisions::Expand,
        syntax: SyntaxGuard::Warn,
    };
    let mut root = None;
    if let Some(value) = value.filter(|v| !v.is_null()) {
        let mut f = Fields::new(value, "options")?;
        let o: OptionsShape = f.take()?;
        if o.signal.is_some() {
            return Err(Failure::invalid(printer::signal_not_abort_signal()));
        }
        root = o.workspace_root;
        opts.cwd = match o.cwd {
            Some(c) if c.is_empty() || c.contains('\0') => {
                return Err(Failure::invalid(printer::cwd_invalid()))
            }
            c => c.map(std::path::PathBuf::from),
        };
        opts.durable = o.durable.unwrap_or(opts.durable);
        opts.max_file_bytes = o.max_file_bytes.map_or(opts.max_file_bytes, |Whole(n)| n);
        opts.hard_links = o.hard_links.unwrap_or(opts.hard_links);
        opts.cancel = Cancel::new(o.cancel_token.map(|Whole(n)| n), o.timeout_ms);
        opts.lock_wait_ms = o.lock_wait_ms.unwrap_or(opts.lock_wait_ms);
        opts.dry_run_ttl_secs = o.dry_run_ttl_seconds.unwrap_or(opts.dry_run_ttl_secs);
        opts.results = o.results.unwrap_or(opts.results);
        if let Some(v) = f.raw(&["defaultMatch", "default_match"]) {
            opts.default_match = MatchMode::from_json(v).map_err(|e| {
                Failure::invalid(printer::under(
                    "options: `defaultMatch`",
                    printer::bad_match(&e),
                ))
            })?;
        }
        opts.elisions = o.elisions.unwrap_or(opts.elisions);
        opts.syntax = o.syntax.unwrap_or(opts.syntax);
        if let Some(j) = f.raw(&["journal"]) {
            opts.journal = journal_option(j, opts.journal.clone())?;
        }
        f.finish()?;
    }
    opts.workspace_root = match root {
        Some(r) if r.is_empty() => return Err(Failure::invalid(printer::workspace_root_empty())),
        Some(r) if r.contains('\0') => return Err(Failure::invalid(printer::workspace_root_nul())),
        Some(r) => std::path::PathBuf::from(r),
        None => cwd().map_err(|e| Failure::invalid(printer::no_current_directory(&e)))?,
    };
    Ok(opts)
}

/// `PATCH_FILE_STATE_DIR`, when set, must be an absolute directory: a
/// relative one, read under whatever the process's working directory was,
/// put the journal (files' earlier contents) inside a project, or turned it
/// off with a warning. Refused as a relative `PATCH_FILE_JOURNAL` is (the
/// state directory then never takes it: see `io::state::state_path`).
pub(crate) fn state_dir_from_env() -> Result<(), Failure> {
    match std::env::var_os("PATCH_FILE_STATE_DIR").filter(|v| !v.is_empty()) {
        Some(v) if !std::path::Path::new(&v).is_absolute() => {
            let shown = v.to_string_lossy().chars().take(64).collect::<String>();
            Err(Failure::invalid(printer::state_dir_env_invalid(&shown)))
        }
        _ => Ok(()),
    }
}

/// The journal as the environment sets it: `PATCH_FILE_JOURNAL` = `off`
/// (also `false`, `0`, `no`) turns it off, an absolute path is the journal
/// directory; unset: on, in the per-user state directory. Any other value
/// (a word such as `disabled`, a relative path) is refused: read as a
/// directory under whatever the process's working directory is, it put
/// the journal (files' earlier contents) inside a project.
pub(crate) fn journal_from_env() -> Result<JournalConfig, Failure> {
    let mut j = JournalConfig::default();
    if let Some(v) = std::env::var_os("PATCH_FILE_JOURNAL").filter(|v| !v.is_empty()) {
        match v.to_str().map(str::to_ascii_lowercase).as_deref() {
            Some("off" | "false" | "0" | "no") => j.enabled = false,
            Some("on" | "true" | "1" | "yes") => {}
            _ if std::path::Path::new(&v).is_absolute() => {
                j.dir = Some(std::path::PathBuf::from(v))
            }
            _ => {
                let shown = v.to_string_lossy().chars().take(64).collect::<String>();
                return Err(Failure::invalid(printer::journal_env_invalid(&shown)));
            }
        }
    }
    Ok(j)
}

request_shape! {
    /// `options.journal` as an object.
    struct JournalShape {
        enabled: Option<bool> = "enabled",
        dir: Option<String> = "dir" | "directory",
        max_entries: Option<Whole> = "maxEntries" | "max_entries",
        max_bytes: Option<Whole> = "maxBytes" | "max_bytes",
        max_file_bytes: Option<Whole> = "maxFileBytes" | "max_file_bytes",
    }
}

/// `options.journal`: `false` (off), `true` (on), a directory, or
/// `{ enabled?, dir?, maxEntries?, maxBytes?, maxFileBytes? }`.
fn journal_option(v: &Value, mut j: JournalConfig) -> Result<JournalConfig, Failure> {
    let dir = |s: &str| -> Result<std::path::PathBuf, Failure> {
        if s.is_empty() || s.contains('\0') {
            return Err(Failure::invalid(printer::journal_dir_invalid()));
        }
        Ok(std::path::PathBuf::from(s))
    };
    match v {
        Value::Bool(b) => j.enabled = *b,
        Value::String(s) => {
            j.enabled = true;
            j.dir = Some(dir(s)?);
        }
        Value::Object(_) => {
            let mut f = Fields::new(v, "options.journal")?;
            let shape: JournalShape = f.take()?;
            if let Some(b) = shape.enabled {
                j.enabled = b;
            }
            if let Some(d) = shape.dir {
                j.dir = Some(dir(&d)?);
            }
            if let Some(Whole(n)) = shape.max_entries {
                j.max_entries = n.max(1);
            }
            if let Some(Whole(n)) = shape.max_bytes {
                j.max_bytes = n;
            }
            if let Some(Whole(n)) = shape.max_file_bytes {
                j.max_file_bytes = n;
            }
            f.finish()?;
        }
        other => return Err(Failure::invalid(printer::journal_option_kind(kind(other)))),
    }
    Ok(j)
}

/// A `history` call: newest first, at most `limit`, only transactions
/// touching `file_path` when given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HistoryRequest {
    pub(crate) limit: usize,
    pub(crate) file_path: Option<String>,
}

/// Default `history` limit.
pub(crate) const DEFAULT_HISTORY_LIMIT: usize = 20;

request_shape! {
    /// A `history` call's limit (checked before the path is read).
    struct LimitShape {
        limit: Option<Whole> = "limit",
    }
}

request_shape! {
    /// The file a `history` call is about.
    struct HistoryShape {
        file_path: Option<String> = "file_path" | "filePath" | "path",
    }
}

pub(crate) fn history_request(input: &Value) -> Result<HistoryRequest, Failure> {
    let mut r = HistoryRequest {
        limit: DEFAULT_HISTORY_LIMIT,
        file_path: None,
    };
    if input.is_null() {
        return Ok(r);
    }
    let mut f = Fields::new(input, "input")?;
    let LimitShape { limit } = f.take()?;
    if let Some(Whole(n)) = limit {
        if n == 0 {
            return Err(Failure::invalid(printer::history_limit_zero()));
        }
        r.limit = n.min(100_000) as usize;
    }
    let HistoryShape { file_path } = f.take()?;
    r.file_path = file_path;
    f.finish()?;
    Ok(r)
}

/// An `undo` call: the transaction to undo (`None`: the newest undoable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UndoRequest {
    pub(crate) id: Option<String>,
    pub(crate) dry_run: bool,
}

request_shape! {
    /// An `undo` call's transaction id, read by hand: a string, or the
    /// number a caller copied without quotes.
    struct UndoShape {
        _id: Option<IgnoredAny> = "id",
    }
}

pub(crate) fn undo_request(input: &Value) -> Result<UndoRequest, Failure> {
    let mut r = UndoRequest {
        id: None,
        dry_run: false,
    };
    match input {
        Value::Null => return Ok(r),
        Value::String(s) => {
            r.id = Some(s.clone());
            return Ok(r);
        }
        Value::Number(n) => {
            r.id = Some(n.to_string());
            return Ok(r);
        }
        _ => {}
    }
    let mut f = Fields::new(input, "input")?;
    let UndoShape { .. } = f.take()?;
    r.id = match f.raw(&["id"]) {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(v) => return Err(Failure::invalid(printer::undo_id_kind(kind(v)))),
    };
    r.dry_run = dry_run(&mut f)?;
    f.finish()?;
    Ok(r)
}

// ---------------------------------------------------------------------------
// Edit formats and the text editor: the text argument and `dry_run`
//
// Read by hand, not through a shape: the argument is a string or an object
// whose text field is named by the caller's format (`patch`, `diff`, …), and
// its messages list the accepted names in one sentence ("expected `patch`
// and optionally `dry_run`"); `dry_run` given in options is split off
// before the options shape refuses it as unknown.

/// Splits `dry_run` off the options (the shared options refuse unknown keys).
pub(crate) fn options_and_dry_run(
    raw: Option<&Value>,
    cwd: impl FnOnce() -> std::io::Result<std::path::PathBuf>,
) -> Result<(Options, Option<bool>), Failure> {
    let mut dry = None;
    let rest = match raw {
        Some(Value::Object(m)) if DRY_KEYS.iter().any(|k| m.contains_key(*k)) => {
            let mut m = m.clone();
            for k in DRY_KEYS {
                match m.remove(*k) {
                    None | Some(Value::Null) => {}
                    Some(Value::Bool(b)) => {
                        if dry.is_some_and(|d| d != b) {
                            return Err(Failure::invalid(printer::dry_run_spellings_differ()));
                        }
                        dry = Some(b);
                    }
                    Some(_) => return Err(Failure::invalid(printer::not_boolean("options", k))),
                }
            }
            Some(Value::Object(m))
        }
        other => other.cloned(),
    };
    Ok((options(rest.as_ref(), cwd)?, dry))
}

/// Reads the text argument: a string, or an object with the text under one
/// of `keys` and an optional `dry_run`.
pub(crate) fn text_input<'a>(
    input: &'a Value,
    keys: &[&str],
    what: &str,
) -> Result<(&'a str, Option<bool>), Failure> {
    match input {
        Value::String(s) => Ok((s, None)),
        Value::Object(m) => {
            let mut text: Option<&str> = None;
            let mut dry = None;
            for (k, v) in m {
                if keys.contains(&k.as_str()) {
                    let Value::String(s) = v else {
                        return Err(Failure::invalid(printer::not_string(k)));
                    };
                    if text.is_some_and(|t| t != s) {
                        return Err(Failure::invalid(printer::text_twice(what, keys)));
                    }
                    text = Some(s);
                } else if DRY_KEYS.contains(&k.as_str()) {
                    match v {
                        Value::Bool(b) => dry = Some(*b),
                        Value::Null => {}
                        _ => return Err(Failure::invalid(printer::not_boolean("input", k))),
                    }
                } else {
                    return Err(Failure::invalid(printer::text_unknown_field(
                        &shown(k),
                        keys[0],
                    )));
                }
            }
            let text =
                text.ok_or_else(|| Failure::invalid(printer::text_missing(keys[0], what)))?;
            Ok((text, dry))
        }
        _ => Err(Failure::invalid(printer::text_input_shape(what, keys[0]))),
    }
}

request_shape! {
    /// `applyPatch` given one operation of OpenAI's `apply_patch` tool as
    /// structure (the agent-SDK adapters do), read into [`Operation`].
    struct OperationInput {
        _operation: Option<IgnoredAny> = "operation",
    }
}

request_shape! {
    /// The operation's fields, as OpenAI's SDKs name them.
    struct OperationShape {
        kind: String = "type"; required "\"create_file\", \"update_file\" or \"delete_file\"",
        path: String = "path"; required "a string",
        diff: Option<String> = "diff",
        move_to: Option<String> = "move_to" | "moveTo",
    }
}

/// `applyPatch({ operation, dry_run? })`: the operation and the dry-run flag;
/// `None` when the input is not that shape (a patch text).
pub(crate) fn operation_request(
    value: &Value,
) -> Result<Option<(Operation, Option<bool>)>, Failure> {
    if !value
        .as_object()
        .is_some_and(|m| m.contains_key("operation"))
    {
        return Ok(None);
    }
    let mut f = Fields::new(value, "input")?;
    f.take::<OperationInput>()?;
    let DryShape { dry_run } = f.take()?;
    let op = f.raw(&["operation"]).unwrap_or(&Value::Null);
    f.finish()?;
    let mut g = Fields::new(op, "input.operation")?;
    let OperationShape {
        kind,
        path,
        diff,
        move_to,
    } = g.take()?;
    g.finish()?;
    let kind = match kind.as_str() {
        "create_file" => OperationKind::Create,
        "update_file" => OperationKind::Update,
        "delete_file" => OperationKind::Delete,
        _ => {
            return Err(Failure::invalid(printer::operation_type(&short(
                &Value::String(kind),
            ))))
        }
    };
    if path.is_empty() {
        return Err(Failure::invalid(printer::operation_path_empty()));
    }
    if kind != OperationKind::Delete && diff.is_none() {
        return Err(Failure::invalid(printer::operation_needs_diff()));
    }
    if kind != OperationKind::Update && move_to.is_some() {
        return Err(Failure::invalid(printer::operation_move_not_update()));
    }
    Ok(Some((
        Operation {
            kind,
            path,
            diff,
            move_to,
        },
        dry_run,
    )))
}

pub(crate) fn pick_dry(a: Option<bool>, b: Option<bool>) -> Result<bool, Failure> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => Err(Failure::invalid(printer::dry_run_both_differ())),
        (x, y) => Ok(x.or(y).unwrap_or(false)),
    }
}

// ---------------------------------------------------------------------------
// server-filesystem's `edit_file` input
//
// Read by hand, not through a shape: this is a translation of another
// tool's exact schema, not one of our requests. It accepts only that
// schema's names (no aliases, no nulls as absent) and answers in its terms
// ("edits[0] must be { oldText, newText }"), then hands the result to
// `patch_request`, which does the reading.

/// `{path, edits, dryRun}` → the `patchFile` input.
pub(crate) fn edit_file_input(input: &Value) -> Result<Value, Failure> {
    let Value::Object(m) = input else {
        return Err(Failure::invalid(printer::edit_file_not_object()));
    };
    let mut out = Map::new();
    for (k, v) in m {
        match k.as_str() {
            "path" => {
                out.insert("file_path".into(), v.clone());
            }
            "edits" => {
                let Value::Array(edits) = v else {
                    return Err(Failure::invalid(printer::edit_file_edits_not_array()));
                };
                for (i, e) in edits.iter().enumerate() {
                    let ok = e.as_object().is_some_and(|o| {
                        o.keys().all(|k| k == "oldText" || k == "newText")
                            && o.contains_key("oldText")
                            && o.contains_key("newText")
                    });
                    if !ok {
                        return Err(Failure::invalid(printer::edit_file_item(i)));
                    }
                }
                out.insert("edits".into(), v.clone());
            }
            "dryRun" => {
                out.insert("dry_run".into(), v.clone());
            }
            other => return Err(Failure::invalid(printer::edit_file_unknown(&shown(other)))),
        }
    }
    if !out.contains_key("file_path") {
        return Err(Failure::invalid(printer::edit_file_path_missing()));
    }
    if !out.contains_key("edits") {
        return Err(Failure::invalid(printer::edit_file_edits_missing()));
    }
    // Exact, but for line breaks, as every caller's text of the edit
    // formats: in a CRLF file the texts' LF breaks stand for CRLF (and the
    // reverse), else new lines typed with LF would leave it mixed.
    out.insert(
        "match".into(),
        Value::from(vec![Value::from("line_endings")]),
    );
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use serde_json::json;

    fn err(v: Value) -> Failure {
        patch_request(&v).unwrap_err()
    }

    #[test]
    fn both_naming_styles_and_mixed() {
        let a =
            patch_request(&json!({"file_path": "a", "search_block": "x", "replace_block": "y"}))
                .unwrap();
        let b = patch_request(&json!({"filePath": "a", "searchBlock": "x", "replaceBlock": "y"}))
            .unwrap();
        let c = patch_request(&json!({"filePath": "a", "search_block": "x", "replaceBlock": "y"}))
            .unwrap();
        // The same request; only the names its messages use follow the caller.
        let names = |r: &PatchRequest| r.file.edits.iter().map(|e| e.said).collect::<Vec<_>>();
        let unnamed = |mut r: PatchRequest| {
            for e in &mut r.file.edits {
                e.said = Said::CANONICAL;
            }
            r
        };
        assert_eq!(
            names(&b)[0],
            Said {
                search: "searchBlock",
                replace: "replaceBlock",
                expected: "expectedReplacements",
                all: "replaceAll"
            }
        );
        assert_eq!(
            (names(&c)[0].search, names(&c)[0].replace),
            ("search_block", "replaceBlock")
        );
        assert_eq!(a, unnamed(b));
        assert_eq!(a, unnamed(c));
        assert_eq!(
            a.file.edits,
            vec![Edit {
                search: "x".into(),
                replace: "y".into(),
                count: Count::One,
                said: crate::model::Said::CANONICAL,
            }]
        );
    }

    #[test]
    fn same_field_twice() {
        let same =
            json!({"file_path": "a", "filePath": "a", "search_block": "x", "replace_block": ""});
        assert!(patch_request(&same).is_ok());
        let e = err(
            json!({"file_path": "a", "filePath": "b", "search_block": "x", "replace_block": ""}),
        );
        assert_eq!(e.code, ErrorCode::INVALID_INPUT);
        assert!(
            e.message.contains("file_path") && e.message.contains("filePath"),
            "{}",
            e.message
        );
    }

    #[test]
    fn missing_wrong_type_empty() {
        assert!(err(json!({"search_block": "x", "replace_block": ""}))
            .message
            .contains("file_path"));
        assert!(err(json!({"file_path": "a", "replace_block": ""}))
            .message
            .contains("search_block"));
        assert!(err(json!({"file_path": "a", "search_block": "x"}))
            .message
            .contains("replace_block"));
        assert!(
            err(json!({"file_path": 1, "search_block": "x", "replace_block": ""}))
                .message
                .contains("string")
        );
        assert!(
            err(json!({"file_path": "a", "search_block": "", "replace_block": ""}))
                .message
                .contains("empty")
        );
        assert!(err(json!("nope")).message.contains("object"));
        assert!(err(Value::Null).message.contains("missing"));
        assert!(err(
            json!({"file_path": "a", "serach_block": "x", "search_block": "x", "replace_block": ""})
        )
        .message
        .contains("serach_block"));
    }

    #[test]
    fn a_misspelt_field_is_named_with_the_nearest_accepted_name() {
        // Named as sent, before the field it misspells is missed.
        let e = err(json!({"file_path": "a", "serach_block": "x", "replace_block": ""}));
        assert_eq!(
            e.message,
            "input: unknown field `serach_block` (did you mean `search_block`?)"
        );
        let e = err(json!({"file_pth": "a", "search_block": "x", "replace_block": ""}));
        assert_eq!(
            e.message,
            "input: unknown field `file_pth` (did you mean `file_path`?)"
        );
        let e = err(json!({"file_path": "a", "search_block": "x", "newtext": ""}));
        assert_eq!(
            e.message,
            "input: unknown field `newtext` (did you mean `newText`?)"
        );
        let e = err(json!({"file_path": "a", "edits": [{"oldText": "x", "newTxt": ""}]}));
        assert_eq!(
            e.message,
            "edits[0]: unknown field `newTxt` (did you mean `newText`?)"
        );
        // Beside every required field: refused when the rest is read, with a guess.
        let e = err(
            json!({"file_path": "a", "search_block": "x", "replace_block": "", "expected_replacement": 2}),
        );
        assert_eq!(
            e.message,
            "input: unknown field `expected_replacement` (did you mean `expected_replacements`?)"
        );
        // Nothing near: no guess; a field far from the missing one leaves it missing.
        let e =
            err(json!({"file_path": "a", "search_block": "x", "replace_block": "", "colour": 1}));
        assert_eq!(e.message, "input: unknown field `colour`");
        let e = err(json!({"file_path": "a", "replace_block": "", "colour": 1}));
        assert_eq!(
            e.message,
            "input: `search_block` is required (the exact current text to replace)"
        );
        let e = batch_request(
            &json!({"files": [{"file_path": "a", "search_blok": "x", "replace_block": ""}]}),
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "files[0]: unknown field `search_blok` (did you mean `search_block`?)"
        );
    }

    #[test]
    fn a_misspelt_dry_run_is_named_with_its_nearest_spelling() {
        let e = err(
            json!({"file_path": "a", "search_block": "x", "replace_block": "", "dryrun": true}),
        );
        assert_eq!(
            e.message,
            "input: unknown field `dryrun` (did you mean `dry_run`?)"
        );
    }

    #[test]
    fn nearest_names_allow_a_slip_of_the_keyboard_only() {
        let names = [SEARCH_KEYS, REPLACE_KEYS, PATH_KEYS].concat();
        assert_eq!(closest_name("serach_block", &names), Some("search_block"));
        assert_eq!(closest_name("SearchBlock", &names), Some("searchBlock"));
        assert_eq!(closest_name("Search_Block", &names), Some("search_block"));
        assert_eq!(closest_name("old_text", &names), Some("oldText"));
        assert_eq!(closest_name("fielpath", &names), Some("file_path"));
        assert_eq!(closest_name("path", &names), None);
        assert_eq!(closest_name("content", &names), None);
        assert_eq!(closest_name("x", &names), None);
        let d = |a: &str, b: &str| {
            edit_distance(
                &a.chars().collect::<Vec<_>>(),
                &b.chars().collect::<Vec<_>>(),
            )
        };
        assert_eq!(d("abc", "abc"), 0);
        assert_eq!(d("abc", "acb"), 1);
        assert_eq!(d("", "abc"), 3);
        assert_eq!(d("kitten", "sitting"), 3);
    }

    #[test]
    fn an_edit_keeps_the_names_its_caller_used() {
        let said = |v: Value| patch_request(&v).unwrap().file.edits[0].said;
        assert_eq!(
            said(json!({"file_path": "a", "search_block": "x", "replace_block": ""})),
            Said::CANONICAL
        );
        assert_eq!(
            said(json!({"file_path": "a", "oldText": "x", "newText": ""})),
            Said {
                search: "oldText",
                replace: "newText",
                expected: "expectedReplacements",
                all: "replaceAll"
            }
        );
        // Mixed spellings: each field its own; a count given is named as given.
        assert_eq!(
            said(
                json!({"file_path": "a", "old_str": "x", "replaceBlock": "", "expectedReplacements": 2})
            ),
            Said {
                search: "old_str",
                replace: "replaceBlock",
                expected: "expectedReplacements",
                all: "replace_all"
            }
        );
        // A missing text is named in the spelling of its pair.
        assert_eq!(
            err(json!({"file_path": "a", "oldText": "x"})).message,
            "input: `newText` is required (use \"\" to delete the text)"
        );
        assert_eq!(
            err(json!({"file_path": "a", "new_string": "x"})).message,
            "input: `old_string` is required (the exact current text to replace)"
        );
        assert!(err(json!({"file_path": "a", "old_str": "", "new_str": ""}))
            .message
            .contains("`old_str` is empty"));
        assert_eq!(
            err(json!({"file_path": "a", "search": "x", "replace": "", "expectedReplacements": 2, "replaceAll": true}))
                .message,
            "input: give either `expectedReplacements` or `replaceAll: true`, not both"
        );
    }

    #[test]
    fn empty_replace_is_valid() {
        let r = patch_request(&json!({"file_path": "a", "search_block": "x", "replace_block": ""}))
            .unwrap();
        assert_eq!(r.file.edits[0].replace, "");
    }

    #[test]
    fn edits_and_aliases() {
        let r = patch_request(&json!({"file_path": "a", "edits": [
            {"search_block": "a", "replace_block": "b"},
            {"searchBlock": "c", "replaceBlock": "d", "expected_replacements": 3},
            {"search": "e", "replace": "f", "replace_all": true},
            {"oldText": "g", "newText": "h"},
            {"old_string": "i", "new_string": "j", "replaceAll": false},
        ]}))
        .unwrap();
        let counts: Vec<Count> = r.file.edits.iter().map(|e| e.count).collect();
        assert_eq!(
            counts,
            vec![
                Count::One,
                Count::Exactly(3),
                Count::All,
                Count::One,
                Count::One
            ]
        );
        assert_eq!(r.file.edits[3].search, "g");
        assert!(err(
            json!({"file_path": "a", "search_block": "x", "replace_block": "", "edits": []})
        )
        .message
        .contains("not both"));
        assert!(err(json!({"file_path": "a", "edits": [{"search": "x", "replace": "", "expected_replacements": 2, "replace_all": true}]}))
            .message
            .contains("not both"));
        assert!(err(
            json!({"file_path": "a", "edits": [{"search": "x", "replace": "", "bogus": 1}]})
        )
        .message
        .contains("edits[0]"));
    }

    #[test]
    fn sha_is_checked() {
        let h = "A".repeat(64);
        let r = patch_request(&json!({"file_path": "a", "search_block": "x", "replace_block": "", "expected_sha256": h})).unwrap();
        assert_eq!(r.file.expected_sha256.unwrap(), "a".repeat(64));
        assert!(err(json!({"file_path": "a", "search_block": "x", "replace_block": "", "expected_sha256": "zz"}))
            .message
            .contains("64 hex"));
    }

    #[test]
    fn options_defaults_and_types() {
        let o = options(None, || Ok("/tmp".into())).unwrap();
        assert_eq!(o.workspace_root, std::path::PathBuf::from("/tmp"));
        assert!(o.durable);
        let o = options(
            Some(&json!({"workspaceRoot": "/w", "durable": false, "maxFileBytes": 10})),
            || unreachable!(),
        )
        .unwrap();
        assert_eq!((o.durable, o.max_file_bytes), (false, 10));
        assert!(options(Some(&json!({"workspaceRoot": 3})), || unreachable!()).is_err());
        assert!(options(Some(&json!({"bogus": 3})), || unreachable!()).is_err());
    }
    #[test]
    fn read_limit_and_dry_run_ttl_bounds() {
        let r = read_request(&json!({"file_path": "a", "offset": 3, "limit": 2})).unwrap();
        assert_eq!((r.offset, r.limit), (3, Some(2)));
        assert_eq!(
            read_request(&json!({"file_path": "a"})).unwrap().limit,
            None
        );
        let e = read_request(&json!({"file_path": "a", "limit": 0})).unwrap_err();
        assert!(e.message.contains("limit"), "{}", e.message);
        let ttl = |n: u64| {
            options(
                Some(&json!({"workspaceRoot": "/w", "dryRunTtlSeconds": n})),
                || unreachable!(),
            )
        };
        assert_eq!(ttl(1).unwrap().dry_run_ttl_secs, 1);
        assert_eq!(
            ttl(MAX_DRY_RUN_TTL_SECS).unwrap().dry_run_ttl_secs,
            MAX_DRY_RUN_TTL_SECS
        );
        assert_eq!(ttl(0).unwrap_err().code, ErrorCode::INVALID_INPUT);
        assert_eq!(
            ttl(MAX_DRY_RUN_TTL_SECS + 1).unwrap_err().code,
            ErrorCode::INVALID_INPUT
        );
        assert_eq!(ttl(u64::MAX).unwrap_err().code, ErrorCode::INVALID_INPUT);
        assert_eq!(
            options(None, || Ok("/w".into())).unwrap().dry_run_ttl_secs,
            300
        );
    }

    #[test]
    fn counts_explicit_one_is_exactly_one() {
        let r = patch_request(
            &json!({"file_path": "a", "search": "x", "replace": "y", "expected_replacements": 1}),
        )
        .unwrap();
        assert_eq!(r.file.edits[0].count, Count::Exactly(1));
        let r = patch_request(
            &json!({"file_path": "a", "search": "x", "replace": "y", "replace_all": false}),
        )
        .unwrap();
        assert_eq!(r.file.edits[0].count, Count::One);
        assert!(err(
            json!({"file_path": "a", "search": "x", "replace": "y", "expected_replacements": 0})
        )
        .message
        .contains("at least 1"));
        assert!(err(json!({"file_path": "a", "search": "x", "replace": "y", "expected_replacements": 2, "replaceAll": true}))
            .message
            .contains("not both"));
        assert!(err(
            json!({"file_path": "a", "search": "x", "replace": "y", "expected_replacements": 1.5})
        )
        .message
        .contains("whole number"));
    }

    #[test]
    fn translates_the_filesystem_shape() {
        let v = edit_file_input(
            &json!({"path": "a.txt", "edits": [{"oldText": "x", "newText": "y"}], "dryRun": true}),
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"file_path": "a.txt", "edits": [{"oldText": "x", "newText": "y"}], "dry_run": true,
                   "match": ["line_endings"]})
        );
        for bad in [
            json!({"edits": []}),
            json!({"path": "a"}),
            json!({"path": "a", "edits": [{"oldText": "x"}]}),
            json!({"path": "a", "edits": [{"oldText": "x", "newText": "y", "replace_all": true}]}),
            json!({"path": "a", "edits": [], "file_path": "b"}),
            json!("a"),
        ] {
            assert_eq!(
                edit_file_input(&bad).unwrap_err().code,
                ErrorCode::INVALID_INPUT,
                "{bad}"
            );
        }
    }

    #[test]
    fn request_field() {
        use crate::error::ErrorCode;
        use Tolerance::*;
        let r = patch_request(
            &json!({"file_path": "a", "search_block": "x", "replace_block": "y",
            "match": ["line_endings", "unicode_punctuation"]}),
        )
        .unwrap();
        assert_eq!(
            r.file.match_mode.unwrap().tolerances(),
            vec![LineEndings, UnicodePunctuation]
        );
        let r =
            patch_request(&json!({"file_path": "a", "search_block": "x", "replace_block": "y"}))
                .unwrap();
        // Not given: the options' `defaultMatch` applies (exact unless set).
        assert_eq!(r.file.match_mode, None);
        assert!(options(None, || Ok("/".into()))
            .unwrap()
            .default_match
            .is_exact());
        let e = patch_request(&json!({"file_path": "a", "search_block": "x", "replace_block": "y", "match": ["fuzzy"]}))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_INPUT);
        assert!(
            e.message.contains("fuzzy") && e.message.contains("line_endings"),
            "{}",
            e.message
        );
        let e = patch_request(
            &json!({"file_path": "a", "search_block": "x", "replace_block": "y", "match": "loose"}),
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_INPUT);
        let b = batch_request(
            &json!({"files": [{"file_path": "a", "edits": [{"search": "x", "replace": "y"}],
            "match": ["indentation"]}]}),
        )
        .unwrap();
        assert_eq!(
            b.files[0].match_mode.unwrap().tolerances(),
            vec![Indentation]
        );
    }

    #[test]
    fn write_encoding_is_utf8_or_absent() {
        let base = json!({"file_path": "a", "content": "x"});
        assert_eq!(write_request(&base).unwrap().encoding, None);
        let mut v = base.clone();
        v["encoding"] = json!("utf-8");
        assert_eq!(write_request(&v).unwrap().encoding, Some(Encoding::Utf8));
        v["encoding"] = Value::Null;
        assert_eq!(write_request(&v).unwrap().encoding, None);
        for bad in [
            json!("UTF-8"),
            json!("utf8"),
            json!("latin1"),
            json!("binary-safe-bytes"),
            json!(""),
            json!(8),
            json!(true),
            json!(["utf-8"]),
        ] {
            v["encoding"] = bad.clone();
            let e = write_request(&v).unwrap_err();
            assert_eq!(e.code, ErrorCode::INVALID_INPUT, "{bad}");
            assert!(e.message.contains("`encoding`"), "{}", e.message);
        }
        // Not a field of the other requests.
        let e = read_request(&json!({"file_path": "a", "encoding": "utf-8"})).unwrap_err();
        assert!(
            e.message.contains("unknown field `encoding`"),
            "{}",
            e.message
        );
    }
}

// ---------------------------------------------------------------------------
// editLines

/// An `editLines` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LinesRequest {
    pub(crate) file_path: String,
    pub(crate) edits: Vec<LineEdit>,
    pub(crate) expected_sha256: Option<String>,
    pub(crate) dry_run: bool,
    /// Every new line of some edit carried a read's `LINE#ID|` tag, taken
    /// off before writing.
    pub(crate) untagged: bool,
}

request_shape! {
    /// An `editLines` call's list, read by hand.
    struct LinesShape {
        _edits: Option<IgnoredAny> = "edits"; required "an array of { op, pos, end, lines }",
    }
}

request_shape! {
    /// One anchored edit; `lines` is read by hand (a string, an array of
    /// strings or null).
    struct LineEditShape {
        op: Option<String> = "op",
        pos: Option<String> = "pos",
        end: Option<String> = "end",
        _lines: Option<IgnoredAny> = "lines",
    }
}

/// Normalizes an `editLines` input.
pub(crate) fn lines_request(value: &Value) -> Result<LinesRequest, Failure> {
    let mut f = Fields::new(value, "input")?;
    let PathShape { file_path } = f.take()?;
    let expected_sha256 = sha(&mut f)?;
    let dry_run = dry_run(&mut f)?;
    let LinesShape { .. } = f.take()?;
    let list = f.raw(&["edits"]).cloned().unwrap_or(Value::Null);
    f.finish()?;
    let Value::Array(items) = list else {
        return Err(Failure::invalid(printer::line_edits_kind(kind(&list))));
    };
    if items.is_empty() || items.len() > MAX_EDITS {
        return Err(Failure::invalid(printer::line_edits_count(MAX_EDITS)));
    }
    let mut untagged = false;
    let edits = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let (edit, stripped) = line_edit(item, &printer::item_label("edits", i))?;
            untagged |= stripped;
            Ok(edit)
        })
        .collect::<Result<Vec<_>, Failure>>()?;
    Ok(LinesRequest {
        file_path,
        edits,
        expected_sha256,
        dry_run,
        untagged,
    })
}

/// `lines` copied from a read with anchors, tags and all: when every
/// non-empty line starts with a `LINE#ID|` tag and one of them at least
/// is a tag a read gave ([`read_tag`]; `own`: the edit's anchors), the
/// tags are taken off (`true`: some lines may have been edited after
/// theirs); when a read's tags start some lines and others have none, the
/// call is refused (which reading is meant cannot be told); else the lines
/// are as sent: a start of that shape that no line confirms is text (an
/// example of the format in a Markdown file lost it).
fn untag(lines: &mut [String], own: &[Anchor], what: &str) -> Result<bool, Failure> {
    let typed = lines.iter().filter(|l| !l.is_empty());
    if !typed.clone().any(|l| read_tag(l, own)) {
        return Ok(false);
    }
    if typed.clone().any(|l| tag_len(l).is_none()) {
        return Err(Failure::invalid(printer::lines_partly_tagged(what)));
    }
    for l in lines.iter_mut() {
        if let Some(n) = tag_len(l) {
            l.drain(..n);
        }
    }
    Ok(true)
}

/// One anchored edit, labelled `what`, and whether its lines' tags were
/// taken off ([`untag`]).
fn line_edit(item: &Value, what: &str) -> Result<(LineEdit, bool), Failure> {
    let mut e = Fields::new(item, what)?;
    let LineEditShape { op, pos, end, .. } = e.take()?;
    // Required: a call cut short before its `lines` must not delete the
    // line it names (only `null` or `[]` deletes).
    if !e.given(&["lines"]) {
        return Err(Failure::invalid(printer::lines_missing(what)));
    }
    let new = e.raw(&["lines"]).cloned().unwrap_or(Value::Null);
    e.finish()?;
    // `replace`, the commonest, is the default: the cheapest call names
    // no `op`.
    let op = match op.as_deref().unwrap_or("replace") {
        "replace" => LineOp::Replace,
        "append" => LineOp::Append,
        "prepend" => LineOp::Prepend,
        other => return Err(Failure::invalid(printer::line_op(what, &shown(other)))),
    };
    let anchor = |field: &str, v: Option<String>| -> Result<Option<Anchor>, Failure> {
        v.map(|s| {
            Anchor::parse(&s)
                .ok_or_else(|| Failure::invalid(printer::not_an_anchor(what, field, &shown(&s))))
        })
        .transpose()
    };
    let (pos, end) = (anchor("pos", pos)?, anchor("end", end)?);
    let mut lines: Vec<String> = match new {
        Value::Null => Vec::new(),
        Value::String(s) => split_lines(&s),
        Value::Array(a) => a
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(split_lines(s)),
                other => Err(Failure::invalid(printer::lines_item_kind(
                    what,
                    kind(other),
                ))),
            })
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .collect(),
        other => return Err(Failure::invalid(printer::lines_kind(what, kind(&other)))),
    };
    // A CR inside a line is no line break the file uses: written, it would
    // be a lone CR (a line break to some readers, none to others). So is
    // one that ends a line with no LF after it (`"a\r"`): it was dropped in
    // silence, a byte of a line that ends with CR CR LF lost.
    if let Some(k) = lines.iter().position(|l| l.ends_with('\r')) {
        return Err(Failure::invalid(printer::lines_trailing_cr(what, k + 1)));
    }
    if lines.iter().any(|l| l.contains('\r')) {
        return Err(Failure::invalid(printer::lines_lone_cr(what)));
    }
    let own: Vec<Anchor> = pos.iter().chain(end.iter()).copied().collect();
    let untagged = untag(&mut lines, &own, what)?;
    match (op, &pos, &end) {
        (LineOp::Replace, None, _) => Err(Failure::invalid(printer::replace_needs_pos(what))),
        (LineOp::Append | LineOp::Prepend, _, Some(_)) => {
            Err(Failure::invalid(printer::end_for_replace_only(what)))
        }
        (LineOp::Append | LineOp::Prepend, _, _) if lines.is_empty() => {
            Err(Failure::invalid(printer::nothing_to_insert(what)))
        }
        (_, Some(p), Some(q)) if q.line < p.line => Err(Failure::invalid(printer::end_before_pos(
            what,
            &q.show(),
            &p.show(),
        ))),
        _ => Ok((
            LineEdit {
                op,
                pos,
                end,
                lines,
            },
            untagged,
        )),
    }
}

/// A text's lines, without their breaks (a final break ends the last line;
/// it does not start an empty one). A string is one line at least: `""`
/// and `"\n"` are one empty line (only `null` or `[]` deletes). A break is
/// an LF or a CRLF: a CR that no LF follows stays in its line (and is
/// refused there).
fn split_lines(s: &str) -> Vec<String> {
    let s = match s.strip_suffix('\n') {
        Some(t) => t.strip_suffix('\r').unwrap_or(t),
        None => s,
    };
    let mut lines: Vec<String> = s.split('\n').map(str::to_string).collect();
    // Every line but the last was followed by an LF: a CR before it is
    // part of that break.
    let last = lines.len() - 1;
    for l in &mut lines[..last] {
        if l.ends_with('\r') {
            l.pop();
        }
    }
    lines
}
