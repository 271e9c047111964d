//! Input normalization: whatever spelling a caller used (snake_case,
//! camelCase, the aliases of other edit tools) becomes one typed request, or
//! an `INVALID_INPUT` failure that names the offending field.
//!
//! Downstream of this module, spellings survive only as an edit's [`Said`]:
//! the names its messages use, so that a caller who sent `oldText` reads
//! `oldText` back, never a name it did not use. Unknown fields are refused
//! rather than ignored: a misspelt `serach_block` silently dropped would
//! turn into a confusing "missing field" or, worse, a different edit. The
//! refusal names the misspelt field as sent, with the accepted name nearest
//! to it, and comes before any complaint that a required field is missing.

use serde_json::{Map, Value};

use crate::error::Failure;
use crate::model::*;
use crate::text::source::Encoding;

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
}

/// An `applyDryRun` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyRequest {
    pub(crate) run_id: String,
}

const SEARCH_KEYS: &[&str] = &[
    "search_block",
    "searchBlock",
    "search",
    "oldText",
    "old_string",
    "old_str",
];
const REPLACE_KEYS: &[&str] = &[
    "replace_block",
    "replaceBlock",
    "replace",
    "newText",
    "new_string",
    "new_str",
];
const PATH_KEYS: &[&str] = &["file_path", "filePath"];
const SHA_KEYS: &[&str] = &["expected_sha256", "expectedSha256"];
const EXPECTED_KEYS: &[&str] = &["expected_replacements", "expectedReplacements"];
const ALL_KEYS: &[&str] = &["replace_all", "replaceAll"];
const DRY_KEYS: &[&str] = &["dry_run", "dryRun"];

/// A JSON object being read field by field; remembers which keys were used so
/// that leftovers can be reported as unknown.
struct Fields<'a> {
    what: &'a str,
    obj: &'a Map<String, Value>,
    used: Vec<&'a str>,
    /// Every spelling looked for, the names an unknown field is compared
    /// with to suggest the one it was probably meant to be.
    asked: Vec<&'a str>,
}

impl<'a> Fields<'a> {
    fn new(value: &'a Value, what: &'a str) -> Result<Self, Failure> {
        match value {
            Value::Object(obj) => Ok(Fields {
                what,
                obj,
                used: Vec::new(),
                asked: Vec::new(),
            }),
            Value::Null => Err(Failure::invalid(format!(
                "{what} is missing: pass an object"
            ))),
            other => Err(Failure::invalid(format!(
                "{what} must be an object, got {}",
                kind(other)
            ))),
        }
    }

    /// The value given under any of `keys`; the same field spelt twice must
    /// carry the same value. `null` counts as absent.
    fn get(&mut self, keys: &[&'a str]) -> Result<Option<(&'a str, &'a Value)>, Failure> {
        let mut found: Option<(&'a str, &'a Value)> = None;
        self.asked.extend_from_slice(keys);
        for &k in keys {
            if let Some(v) = self.obj.get(k) {
                self.used.push(k);
                if v.is_null() {
                    continue;
                }
                match found {
                    Some((k0, v0)) if v0 != v => {
                        return Err(Failure::invalid(format!(
                            "{}: `{k0}` and `{k}` are the same field with different values; send it once",
                            self.what
                        )))
                    }
                    Some(_) => {}
                    None => found = Some((k, v)),
                }
            }
        }
        Ok(found)
    }

    fn string(&mut self, keys: &[&'a str]) -> Result<Option<String>, Failure> {
        match self.get(keys)? {
            None => Ok(None),
            Some((_, Value::String(s))) => Ok(Some(s.clone())),
            Some((k, v)) => Err(Failure::invalid(format!(
                "{}: `{k}` must be a string, got {}",
                self.what,
                kind(v)
            ))),
        }
    }

    fn required_string(&mut self, keys: &[&'a str]) -> Result<String, Failure> {
        match self.string(keys)? {
            Some(s) => Ok(s),
            None => Err(self.missing(
                keys,
                Failure::invalid(format!(
                    "{}: `{}` is required (a string)",
                    self.what, keys[0]
                )),
            )),
        }
    }

    fn bool(&mut self, keys: &[&'a str]) -> Result<Option<bool>, Failure> {
        match self.get(keys)? {
            None => Ok(None),
            Some((_, Value::Bool(b))) => Ok(Some(*b)),
            Some((k, v)) => Err(Failure::invalid(format!(
                "{}: `{k}` must be a boolean, got {}",
                self.what,
                kind(v)
            ))),
        }
    }

    fn uint(&mut self, keys: &[&'a str]) -> Result<Option<u64>, Failure> {
        match self.get(keys)? {
            None => Ok(None),
            Some((k, v)) => match v.as_u64() {
                Some(n) => Ok(Some(n)),
                None => match v.as_f64() {
                    Some(f) if f >= 0.0 && f.fract() == 0.0 && f < 9.0e15 => Ok(Some(f as u64)),
                    _ => Err(Failure::invalid(format!(
                        "{}: `{k}` must be a non-negative whole number, got {}",
                        self.what,
                        short(v)
                    ))),
                },
            },
        }
    }

    fn has_any(&self, keys: &[&str]) -> bool {
        keys.iter()
            .any(|k| self.obj.get(*k).is_some_and(|v| !v.is_null()))
    }

    /// The keys no reader has asked for so far, sorted.
    fn unknown(&self) -> Vec<&'a str> {
        let mut unknown: Vec<&'a str> = self
            .obj
            .keys()
            .map(String::as_str)
            .filter(|k| !self.used.contains(k))
            .collect();
        unknown.sort_unstable();
        unknown
    }

    /// The failure naming `unknown` fields, each with the asked-for name it
    /// is closest to when one is close enough to be a misspelling of it.
    fn unknown_failure(&self, unknown: &[&str]) -> Failure {
        Failure::invalid(format!(
            "{}: unknown field{} {}",
            self.what,
            if unknown.len() == 1 { "" } else { "s" },
            unknown
                .iter()
                .map(|k| match closest_name(k, &self.asked) {
                    Some(near) => format!("`{k}` (did you mean `{near}`?)"),
                    None => format!("`{k}`"),
                })
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }

    /// `missing` for a required field given under none of `keys`, unless a
    /// field no reader asked for is a misspelling of one of them: then that
    /// field is named (the caller sent the field, under a wrong name).
    fn missing(&self, keys: &[&str], missing: Failure) -> Failure {
        let misspelt: Vec<&str> = self
            .unknown()
            .into_iter()
            .filter(|k| closest_name(k, keys).is_some())
            .collect();
        if misspelt.is_empty() {
            missing
        } else {
            self.unknown_failure(&misspelt)
        }
    }

    /// Refuse keys that no reader asked for.
    fn finish(self) -> Result<(), Failure> {
        let unknown = self.unknown();
        if unknown.is_empty() {
            return Ok(());
        }
        Err(self.unknown_failure(&unknown))
    }
}

/// The name in `names` that `key` most likely misspells: the nearest by
/// edit distance (letter case and `_` ignored, a swap of two neighbouring
/// letters counting as one edit), if near enough for a slip of the keyboard:
/// one edit in a name of up to 5 letters, two up to 10, three beyond. Ties go
/// to the name nearer as written, then to the name listed first.
pub(crate) fn closest_name<'n>(key: &str, names: &[&'n str]) -> Option<&'n str> {
    let fold = |s: &str| -> Vec<char> {
        s.chars()
            .filter(|&c| c != '_')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let k = fold(key);
    let limit = match k.len() {
        0..=5 => 1,
        6..=10 => 2,
        _ => 3,
    };
    let raw: Vec<char> = key.chars().collect();
    // Nearest when folded; among those, nearest as written (so that
    // `expectedReplacement` suggests `expectedReplacements`, not the
    // snake_case spelling).
    let mut best: Option<((usize, usize), &'n str)> = None;
    for &name in names {
        let d = edit_distance(&k, &fold(name));
        if d > limit {
            continue;
        }
        let d = (d, edit_distance(&raw, &name.chars().collect::<Vec<_>>()));
        if best.is_none_or(|(b, _)| d < b) {
            best = Some((d, name));
        }
    }
    best.map(|(_, name)| name)
}

/// Optimal string alignment distance: insertions, deletions, substitutions
/// and swaps of two neighbouring characters, each one edit. Names are short,
/// so the whole table is cheap.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for (i, row) in d.chunks_mut(w).enumerate() {
        row[0] = i;
    }
    for (j, cell) in d.iter_mut().take(w).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

fn sha(fields: &mut Fields<'_>) -> Result<Option<String>, Failure> {
    match fields.string(SHA_KEYS)? {
        None => Ok(None),
        Some(s) => {
            let lower = s.trim().to_ascii_lowercase();
            if lower.len() == 64 && lower.bytes().all(|b| b.is_ascii_hexdigit()) {
                Ok(Some(lower))
            } else {
                Err(Failure::invalid(format!(
                    "{}: `expected_sha256` must be 64 hex digits (the `sha256` of an earlier result)",
                    fields.what
                )))
            }
        }
    }
}

/// An edit's count, and the spellings its two fields were given under.
fn count(
    fields: &mut Fields<'_>,
) -> Result<(Count, Option<&'static str>, Option<&'static str>), Failure> {
    let expected = fields.uint(EXPECTED_KEYS)?;
    let expected_key = spelling(fields, EXPECTED_KEYS);
    let all = fields.bool(ALL_KEYS)?;
    let all_key = spelling(fields, ALL_KEYS);
    let (e, a) = (
        expected_key.unwrap_or(EXPECTED_KEYS[0]),
        all_key.unwrap_or(ALL_KEYS[0]),
    );
    let count = match (expected, all) {
        (Some(_), Some(true)) => {
            return Err(Failure::invalid(format!(
                "{}: give either `{e}` or `{a}: true`, not both",
                fields.what
            )))
        }
        (Some(0), _) => {
            return Err(Failure::invalid(format!(
                "{}: `{e}` must be at least 1",
                fields.what
            )))
        }
        // An explicit count, even 1, is checked as a count: a different
        // number of occurrences is REPLACEMENT_COUNT_MISMATCH.
        (Some(n), _) => Count::Exactly(usize::try_from(n).unwrap_or(usize::MAX)),
        (None, Some(true)) => Count::All,
        (None, _) => Count::One,
    };
    Ok((count, expected_key, all_key))
}

/// The spelling among `keys` the caller gave a value under, if any.
fn spelling(fields: &Fields<'_>, keys: &[&'static str]) -> Option<&'static str> {
    keys.iter()
        .copied()
        .find(|k| fields.obj.get(*k).is_some_and(|v| !v.is_null()))
}

/// A text field of an edit: its value and the index of the spelling used
/// (in [`SEARCH_KEYS`] / [`REPLACE_KEYS`], which pair spellings by index).
fn spelt(
    fields: &mut Fields<'_>,
    keys: &[&'static str],
) -> Result<Option<(String, usize)>, Failure> {
    match fields.get(keys)? {
        None => Ok(None),
        Some((k, Value::String(s))) => Ok(Some((
            s.clone(),
            keys.iter().position(|&x| x == k).unwrap_or(0),
        ))),
        Some((k, v)) => Err(Failure::invalid(format!(
            "{}: `{k}` must be a string, got {}",
            fields.what,
            kind(v)
        ))),
    }
}

fn edit_pair(fields: &mut Fields<'_>) -> Result<Edit, Failure> {
    let search = spelt(fields, SEARCH_KEYS)?;
    let replace = spelt(fields, REPLACE_KEYS)?;
    let (count, expected_key, all_key) = count(fields)?;
    // A missing text is named in the spelling of its pair (`newText` beside
    // `oldText`); each present one keeps its own. The count fields not
    // given are named in the style of the texts (camelCase or snake_case).
    let pair = search.as_ref().or(replace.as_ref()).map_or(0, |&(_, i)| i);
    let search_key = SEARCH_KEYS[search.as_ref().map_or(pair, |&(_, i)| i)];
    let camel = search_key.bytes().any(|b| b.is_ascii_uppercase());
    let said = Said {
        search: search_key,
        replace: REPLACE_KEYS[replace.as_ref().map_or(pair, |&(_, i)| i)],
        expected: expected_key.unwrap_or(EXPECTED_KEYS[usize::from(camel)]),
        all: all_key.unwrap_or(ALL_KEYS[usize::from(camel)]),
    };
    let Some((search, _)) = search else {
        return Err(fields.missing(
            SEARCH_KEYS,
            Failure::invalid(format!(
                "{}: `{}` is required (the exact current text to replace)",
                fields.what, said.search
            )),
        ));
    };
    if search.is_empty() {
        return Err(Failure::invalid(format!(
            "{}: `{}` is empty; send the smallest exact block of current text that occurs once",
            fields.what, said.search
        )));
    }
    let Some((replace, _)) = replace else {
        return Err(fields.missing(
            REPLACE_KEYS,
            Failure::invalid(format!(
                "{}: `{}` is required (use \"\" to delete the text)",
                fields.what, said.replace
            )),
        ));
    };
    Ok(Edit {
        search,
        replace,
        count,
        said,
    })
}

/// Reads the edits of one file: either `edits: [...]` or a single pair.
fn file_edits(value: &Value, what: &str) -> Result<FileEdits, Failure> {
    let mut f = Fields::new(value, what)?;
    let file_path = f.required_string(PATH_KEYS)?;
    let expected_sha256 = sha(&mut f)?;
    let match_mode = match f.get(&["match"])? {
        None => MatchMode::EXACT,
        Some((_, v)) => {
            MatchMode::from_json(v).map_err(|e| Failure::invalid(format!("{what}: {e}")))?
        }
    };
    let edits = if f.has_any(&["edits"]) {
        if f.has_any(SEARCH_KEYS)
            || f.has_any(REPLACE_KEYS)
            || f.has_any(EXPECTED_KEYS)
            || f.has_any(ALL_KEYS)
        {
            return Err(Failure::invalid(format!(
                "{what}: give either `edits` or a single `search_block`/`replace_block` pair, not both"
            )));
        }
        let Some((_, list)) = f.get(&["edits"])? else {
            unreachable!()
        };
        let Value::Array(items) = list else {
            return Err(Failure::invalid(format!(
                "{what}: `edits` must be an array, got {}",
                kind(list)
            )));
        };
        if items.is_empty() {
            return Err(Failure::invalid(format!(
                "{what}: `edits` is empty; send at least one edit"
            )));
        }
        if items.len() > MAX_EDITS {
            return Err(Failure::invalid(format!(
                "{what}: at most {MAX_EDITS} edits per file"
            )));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let label = format!("edits[{i}]");
                let mut e = Fields::new(item, &label)?;
                let edit = edit_pair(&mut e)?;
                e.finish()?;
                Ok(edit)
            })
            .collect::<Result<Vec<_>, Failure>>()?
    } else {
        vec![edit_pair(&mut f)?]
    };
    f.used.push("edits");
    f.finish()?;
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
    let dry_run = f.bool(DRY_KEYS)?.unwrap_or(false);
    // Re-read the same object for the file part, minus the keys handled here.
    let mut obj = match value {
        Value::Object(o) => o.clone(),
        _ => unreachable!(),
    };
    for k in DRY_KEYS {
        obj.remove(*k);
    }
    f.used.extend(
        value
            .as_object()
            .into_iter()
            .flat_map(|o| o.keys().map(String::as_str)),
    );
    f.finish()?;
    let file = file_edits(&Value::Object(obj), "input")?;
    Ok(PatchRequest { file, dry_run })
}

/// Normalizes a `batchPatchFiles` input.
pub fn batch_request(value: &Value) -> Result<BatchRequest, Failure> {
    let mut f = Fields::new(value, "input")?;
    let dry_run = f.bool(DRY_KEYS)?.unwrap_or(false);
    let files = match f.get(&["files"])? {
        Some((_, Value::Array(items))) => items,
        Some((_, v)) => {
            return Err(Failure::invalid(format!(
                "input: `files` must be an array, got {}",
                kind(v)
            )))
        }
        None => {
            return Err(Failure::invalid(
                "input: `files` is required (an array of per-file edits)",
            ))
        }
    };
    f.finish()?;
    if files.is_empty() {
        return Err(Failure::invalid(
            "input: `files` is empty; send at least one file",
        ));
    }
    if files.len() > MAX_BATCH_FILES {
        return Err(Failure::invalid(format!(
            "input: at most {MAX_BATCH_FILES} files per batch"
        )));
    }
    let files = files
        .iter()
        .enumerate()
        .map(|(i, v)| file_edits(v, &format!("files[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(BatchRequest { files, dry_run })
}

/// Normalizes a `readFile` input.
pub fn read_request(value: &Value) -> Result<ReadRequest, Failure> {
    let mut f = Fields::new(value, "input")?;
    let file_path = f.required_string(PATH_KEYS)?;
    let offset = f.uint(&["offset"])?.unwrap_or(0) as usize;
    let limit = match f.uint(&["limit"])? {
        Some(0) => {
            return Err(Failure::invalid(
                "input: `limit` must be at least 1 (omit it to read to the end)",
            ))
        }
        n => n.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
    };
    f.finish()?;
    Ok(ReadRequest {
        file_path,
        offset,
        limit,
    })
}

/// Normalizes a `writeFile` input.
pub fn write_request(value: &Value) -> Result<WriteRequest, Failure> {
    let mut f = Fields::new(value, "input")?;
    let file_path = f.required_string(PATH_KEYS)?;
    let content = f.required_string(&["content"])?;
    let expected_sha256 = sha(&mut f)?;
    let create_dirs = f.bool(&["create_dirs", "createDirs"])?.unwrap_or(true);
    let dry_run = f.bool(DRY_KEYS)?.unwrap_or(false);
    let encoding = match f.get(&["encoding"])? {
        None => None,
        Some((_, Value::String(s))) if s == "utf-8" => Some(Encoding::Utf8),
        Some((_, v)) => {
            return Err(Failure::invalid(format!(
                "input: `encoding` can only be \"utf-8\" (write the file as UTF-8 text, replacing a file that is not valid UTF-8 knowingly), got {}; omit it to keep the file's encoding",
                short(v)
            )))
        }
    };
    f.finish()?;
    Ok(WriteRequest {
        file_path,
        content,
        expected_sha256,
        create_dirs,
        dry_run,
        encoding,
    })
}

/// Normalizes an `applyDryRun` input (an object with `run_id`, or the id itself).
pub fn apply_request(value: &Value) -> Result<ApplyRequest, Failure> {
    if let Value::String(s) = value {
        return Ok(ApplyRequest { run_id: s.clone() });
    }
    let mut f = Fields::new(value, "input")?;
    let run_id = f.required_string(&["run_id", "runId"])?;
    f.finish()?;
    Ok(ApplyRequest { run_id })
}

/// Normalizes the options object; `cwd` is the default workspace root.
pub fn options(
    value: Option<&Value>,
    cwd: impl FnOnce() -> std::io::Result<std::path::PathBuf>,
) -> Result<Options, Failure> {
    let null = Value::Null;
    let value = value.unwrap_or(&null);
    let mut opts = Options {
        workspace_root: std::path::PathBuf::new(),
        durable: true,
        max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        dry_run_ttl_secs: DEFAULT_DRY_RUN_TTL_SECS,
        hard_links: HardLinks::Refuse,
        lock_wait_ms: DEFAULT_LOCK_WAIT_MS,
        cancel: Cancel::default(),
        journal: journal_from_env(),
        entry: "",
        results: ResultView::Full,
    };
    let mut root = None;
    if !value.is_null() {
        let mut f = Fields::new(value, "options")?;
        root = f.string(&["workspaceRoot", "workspace_root"])?;
        if let Some(d) = f.bool(&["durable"])? {
            opts.durable = d;
        }
        if let Some(n) = f.uint(&["maxFileBytes", "max_file_bytes"])? {
            opts.max_file_bytes = n;
        }
        if let Some(h) = f.string(&["hardLinks", "hard_links"])? {
            opts.hard_links = match h.as_str() {
                "refuse" => HardLinks::Refuse,
                "split" => HardLinks::Split,
                "keep" => HardLinks::Keep,
                other => {
                    return Err(Failure::invalid(format!(
                        "options: `hardLinks` must be \"refuse\", \"split\" or \"keep\", got \"{other}\""
                    )))
                }
            };
        }
        let token = f.uint(&["cancelToken", "cancel_token"])?;
        let timeout = f.uint(&["timeoutMs", "timeout_ms"])?;
        if timeout == Some(0) {
            return Err(Failure::invalid("options: `timeoutMs` must be at least 1"));
        }
        opts.cancel = Cancel::new(token, timeout);
        if let Some(n) = f.uint(&["lockWaitMs", "lock_wait_ms"])? {
            if n > MAX_LOCK_WAIT_MS {
                return Err(Failure::invalid(format!(
                    "options: `lockWaitMs` must be at most {MAX_LOCK_WAIT_MS} (ten minutes)"
                )));
            }
            opts.lock_wait_ms = n;
        }
        if let Some(n) = f.uint(&["dryRunTtlSeconds", "dry_run_ttl_seconds"])? {
            if n == 0 || n > MAX_DRY_RUN_TTL_SECS {
                return Err(Failure::invalid(format!(
                    "options: `dryRunTtlSeconds` must be from 1 to {MAX_DRY_RUN_TTL_SECS} (one day)"
                )));
            }
            opts.dry_run_ttl_secs = n;
        }
        if let Some(r) = f.string(&["results"])? {
            opts.results = match r.as_str() {
                "full" => ResultView::Full,
                "compact" => ResultView::Compact,
                other => {
                    return Err(Failure::invalid(format!(
                        "options: `results` must be \"full\" or \"compact\", got \"{other}\""
                    )))
                }
            };
        }
        if let Some((_, j)) = f.get(&["journal"])? {
            opts.journal = journal_option(j, opts.journal.clone())?;
        }
        f.finish()?;
    }
    opts.workspace_root = match root {
        Some(r) if r.is_empty() => {
            return Err(Failure::invalid("options: `workspaceRoot` is empty"))
        }
        Some(r) if r.contains('\0') => {
            return Err(Failure::invalid(
                "options: `workspaceRoot` contains a NUL byte",
            ))
        }
        Some(r) => std::path::PathBuf::from(r),
        None => cwd().map_err(|e| {
            Failure::invalid(format!(
                "options: no `workspaceRoot` and no current directory: {e}"
            ))
        })?,
    };
    Ok(opts)
}

/// The journal as the environment sets it: `PATCH_FILE_JOURNAL` = `off`
/// (also `false`, `0`, `no`) turns it off, any other non-empty value is the
/// journal directory; unset: on, in the per-user state directory.
pub(crate) fn journal_from_env() -> JournalConfig {
    let mut j = JournalConfig::default();
    if let Some(v) = std::env::var_os("PATCH_FILE_JOURNAL").filter(|v| !v.is_empty()) {
        match v.to_str().map(str::to_ascii_lowercase).as_deref() {
            Some("off" | "false" | "0" | "no") => j.enabled = false,
            Some("on" | "true" | "1" | "yes") => {}
            _ => j.dir = Some(std::path::PathBuf::from(v)),
        }
    }
    j
}

/// `options.journal`: `false` (off), `true` (on), a directory, or
/// `{ enabled?, dir?, maxEntries?, maxBytes?, maxFileBytes? }`.
fn journal_option(v: &Value, mut j: JournalConfig) -> Result<JournalConfig, Failure> {
    let dir = |s: &str| -> Result<std::path::PathBuf, Failure> {
        if s.is_empty() || s.contains('\0') {
            return Err(Failure::invalid(
                "options: `journal` directory must be a non-empty path without NUL bytes",
            ));
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
            if let Some(b) = f.bool(&["enabled"])? {
                j.enabled = b;
            }
            if let Some(d) = f.string(&["dir", "directory"])? {
                j.dir = Some(dir(&d)?);
            }
            if let Some(n) = f.uint(&["maxEntries", "max_entries"])? {
                j.max_entries = n.max(1);
            }
            if let Some(n) = f.uint(&["maxBytes", "max_bytes"])? {
                j.max_bytes = n;
            }
            if let Some(n) = f.uint(&["maxFileBytes", "max_file_bytes"])? {
                j.max_file_bytes = n;
            }
            f.finish()?;
        }
        other => {
            return Err(Failure::invalid(format!(
                "options: `journal` must be false, true, a directory or an object, got {}",
                kind(other)
            )))
        }
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

pub(crate) fn history_request(input: &Value) -> Result<HistoryRequest, Failure> {
    let mut r = HistoryRequest {
        limit: DEFAULT_HISTORY_LIMIT,
        file_path: None,
    };
    if input.is_null() {
        return Ok(r);
    }
    let mut f = Fields::new(input, "input")?;
    if let Some(n) = f.uint(&["limit"])? {
        if n == 0 {
            return Err(Failure::invalid("input: `limit` must be at least 1"));
        }
        r.limit = n.min(100_000) as usize;
    }
    r.file_path = f.string(&["file_path", "filePath", "path"])?;
    f.finish()?;
    Ok(r)
}

/// An `undo` call: the transaction to undo (`None`: the newest undoable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UndoRequest {
    pub(crate) id: Option<String>,
    pub(crate) dry_run: bool,
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
    r.id = match f.get(&["id"])? {
        None => None,
        Some((_, Value::String(s))) => Some(s.clone()),
        Some((_, Value::Number(n))) => Some(n.to_string()),
        Some((_, v)) => {
            return Err(Failure::invalid(format!(
                "input: `id` must be a string (a transaction id from history), got {}",
                kind(v)
            )))
        }
    };
    r.dry_run = f.bool(DRY_KEYS)?.unwrap_or(false);
    f.finish()?;
    Ok(r)
}

// ---------------------------------------------------------------------------
// Edit formats and the text editor: the text argument and `dry_run`

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
                            return Err(Failure::invalid(
                                "options: `dry_run` and `dryRun` differ; send one",
                            ));
                        }
                        dry = Some(b);
                    }
                    Some(_) => {
                        return Err(Failure::invalid(format!(
                            "options: `{k}` must be a boolean"
                        )))
                    }
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
                        return Err(Failure::invalid(format!("input: `{k}` must be a string")));
                    };
                    if text.is_some_and(|t| t != s) {
                        return Err(Failure::invalid(format!(
                            "input: give the {what} once (`{}`)",
                            keys.join("` or `")
                        )));
                    }
                    text = Some(s);
                } else if DRY_KEYS.contains(&k.as_str()) {
                    match v {
                        Value::Bool(b) => dry = Some(*b),
                        Value::Null => {}
                        _ => {
                            return Err(Failure::invalid(format!("input: `{k}` must be a boolean")))
                        }
                    }
                } else {
                    return Err(Failure::invalid(format!(
                        "input: unknown field `{k}`; expected `{}` and optionally `dry_run`",
                        keys[0]
                    )));
                }
            }
            let text = text.ok_or_else(|| {
                Failure::invalid(format!("input: `{}` (the {what}) is required", keys[0]))
            })?;
            Ok((text, dry))
        }
        _ => Err(Failure::invalid(format!(
            "input must be the {what} as a string, or {{ {}: string }}",
            keys[0]
        ))),
    }
}

pub(crate) fn pick_dry(a: Option<bool>, b: Option<bool>) -> Result<bool, Failure> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => Err(Failure::invalid(
            "`dry_run` is given in both input and options with different values",
        )),
        (x, y) => Ok(x.or(y).unwrap_or(false)),
    }
}

// ---------------------------------------------------------------------------
// server-filesystem's `edit_file` input

/// `{path, edits, dryRun}` → the `patchFile` input.
pub(crate) fn edit_file_input(input: &Value) -> Result<Value, Failure> {
    let Value::Object(m) = input else {
        return Err(Failure::invalid(
            "input must be an object: { path, edits: [{ oldText, newText }], dryRun? }",
        ));
    };
    let mut out = Map::new();
    for (k, v) in m {
        match k.as_str() {
            "path" => {
                out.insert("file_path".into(), v.clone());
            }
            "edits" => {
                let Value::Array(edits) = v else {
                    return Err(Failure::invalid(
                        "`edits` must be an array of { oldText, newText }",
                    ));
                };
                for (i, e) in edits.iter().enumerate() {
                    let ok = e.as_object().is_some_and(|o| {
                        o.keys().all(|k| k == "oldText" || k == "newText")
                            && o.contains_key("oldText")
                            && o.contains_key("newText")
                    });
                    if !ok {
                        return Err(Failure::invalid(format!(
                            "edits[{i}] must be {{ oldText, newText }} (exactly these two fields)"
                        )));
                    }
                }
                out.insert("edits".into(), v.clone());
            }
            "dryRun" => {
                out.insert("dry_run".into(), v.clone());
            }
            other => {
                return Err(Failure::invalid(format!(
                    "unknown field `{other}`; edit_file takes `path`, `edits` and `dryRun`"
                )))
            }
        }
    }
    if !out.contains_key("file_path") {
        return Err(Failure::invalid("`path` is required"));
    }
    if !out.contains_key("edits") {
        return Err(Failure::invalid(
            "`edits` is required: an array of { oldText, newText }",
        ));
    }
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
            json!({"file_path": "a.txt", "edits": [{"oldText": "x", "newText": "y"}], "dry_run": true})
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
            r.file.match_mode.tolerances(),
            vec![LineEndings, UnicodePunctuation]
        );
        let r =
            patch_request(&json!({"file_path": "a", "search_block": "x", "replace_block": "y"}))
                .unwrap();
        assert!(r.file.match_mode.is_exact());
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
        assert_eq!(b.files[0].match_mode.tolerances(), vec![Indentation]);
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
