//! The vocabulary every layer shares: what an edit is, how it must match,
//! the options of a call, and the file operations an edit format plans.
//! Plain data with no behaviour beyond naming; no module here depends on
//! anything but [`crate::error`].
//!
//! Closed sets of names (a tolerance, a line ending, `write_strategy`,
//! `action`, …) are declared once, here or in [`crate::result`], with
//! `names!` (a macro of this module): each an enum that serializes as its name, with a schema
//! listing every name, so the published contract and the d.ts name the
//! values one can meet instead of saying "string", and every layer speaks
//! the published name.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use serde_json::Value;

/// Declares a string enum: `Serialize` as the given name, a `JsonSchema`
/// of `{ "type": "string", "enum": [...] }`, and `as_str`.
macro_rules! names {
    ($(#[$doc:meta])* $vis:vis enum $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        $vis enum $name { $($(#[$vdoc])* $variant),+ }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The name as results carry it.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// The value named `s`.
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($text => Some($name::$variant),)+ _ => None }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let names: Vec<&str> = Self::ALL.iter().map(|v| v.as_str()).collect();
                schemars::json_schema!({ "type": "string", "enum": names })
            }
        }
    };
}

pub(crate) use names;

/// How many occurrences an edit must find.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    /// Exactly one occurrence (the default).
    One,
    /// Exactly `n` non-overlapping occurrences, all replaced.
    Exactly(usize),
    /// Every occurrence, at least one.
    All,
}

/// One search/replace pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub search: String,
    pub replace: String,
    pub count: Count,
    /// How the caller named the two texts.
    pub said: Said,
}

/// The names a caller gave an edit's two texts (`oldText`/`newText`,
/// `old_str`/`new_str`, …). Messages about an edit use them, so a caller
/// reads its own field names back, never the engine's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Said {
    pub search: &'static str,
    pub replace: &'static str,
    /// The count fields, named in the same style (given or not).
    pub expected: &'static str,
    pub all: &'static str,
}

impl Said {
    /// The engine's own names, for edits that came with no field names.
    pub const CANONICAL: Said = Said {
        search: "search_block",
        replace: "replace_block",
        expected: "expected_replacements",
        all: "replace_all",
    };

    /// A patch hunk's old lines (context and removed) and new lines.
    pub const HUNK: Said = Said {
        search: "the hunk",
        replace: "the hunk's new lines",
        ..Said::CANONICAL
    };

    /// A SEARCH/REPLACE block's two texts.
    pub const BLOCK: Said = Said {
        search: "the SEARCH text",
        replace: "the REPLACE text",
        ..Said::CANONICAL
    };

    /// A text editor's `str_replace` (`old_str`/`new_str`, or camelCase).
    pub const STR_REPLACE: Said = Said {
        search: "old_str",
        replace: "new_str",
        ..Said::CANONICAL
    };
    pub const STR_REPLACE_CAMEL: Said = Said {
        search: "oldStr",
        replace: "newStr",
        ..Said::CANONICAL
    };

    /// Whether the texts are a `str_replace`'s: taken literally, so that
    /// an `old_str` ending in its line break deletes that line only (a
    /// SEARCH/REPLACE block's text ends without the break of its last
    /// line, which an empty REPLACE takes with it).
    pub fn is_str_replace(&self) -> bool {
        *self == Said::STR_REPLACE || *self == Said::STR_REPLACE_CAMEL
    }
}

/// The edits for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdits {
    pub file_path: String,
    pub edits: Vec<Edit>,
    /// Lower-case hex sha256 the file's current bytes must have.
    pub expected_sha256: Option<String>,
    /// `match`: exact or the tolerances allowed; `None` when the call did
    /// not say (then `Options::default_match` applies: exact unless the
    /// caller's front-end chose otherwise).
    pub match_mode: Option<MatchMode>,
}

/// Per-call options shared by every entry point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub workspace_root: std::path::PathBuf,
    /// Where relative paths are resolved from (`cwd`): a directory inside
    /// the root; `None`: the root itself.
    pub cwd: Option<std::path::PathBuf>,
    /// fsync file and directory (default true). `false` is for throw-away sandboxes.
    pub durable: bool,
    /// Files larger than this are refused before reading.
    pub max_file_bytes: u64,
    /// Seconds a dry run stays applicable.
    pub dry_run_ttl_secs: u64,
    /// What to do with a file that has other hard links.
    pub hard_links: HardLinks,
    /// How long a call may wait for a file another call or process is
    /// writing before it answers `FILE_LOCKED` (the JS API waits on the
    /// event loop; a blocking caller waits here).
    pub lock_wait_ms: u64,
    /// Whether the caller gave up (an `AbortSignal`) or the call's time
    /// budget (`timeoutMs`) is spent; checked before anything is written.
    pub cancel: Cancel,
    /// Where (and whether) successful writes are journaled for `history`
    /// and `undo`.
    pub journal: JournalConfig,
    /// The JavaScript name of the entry point making the call (`api`'s
    /// `EntryPoint::name`), recorded in the journal; `None` when unknown.
    pub entry: Option<&'static str>,
    /// How much of a result the caller wants (`results`).
    pub results: ResultView,
    /// The `match` of a search/replace edit that does not give one
    /// (`defaultMatch`): exact for the JS API; the MCP server and the
    /// agent-SDK adapters tolerate line endings alone, so the commonest near
    /// miss (LF text against a CRLF file) lands, the file keeping its CRLF.
    pub default_match: MatchMode,
    /// What elision markers in new text do (`elisions`).
    pub elisions: Elisions,
    /// What a parse error the edit introduces does (`syntax`).
    pub syntax: SyntaxGuard,
}

/// What the syntax check does with a parse error an edit introduces in a
/// file of a checked language (`options.syntax`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyntaxGuard {
    /// Written, and reported in the result's `syntax` (the default).
    #[default]
    Warn,
    /// Refused (`SYNTAX_ERROR_INTRODUCED`): nothing is written.
    Refuse,
    /// Not checked.
    Off,
}

/// What an elision marker in new text (`// ... existing code ...` where
/// lines of the file were) does (`options.elisions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Elisions {
    /// Expanded to the lines it stands for when they are certain, refused
    /// (`ELIDED_CONTENT`) otherwise (the default).
    #[default]
    Expand,
    /// Written as it is: the caller means the text.
    Literal,
}

/// How much of a result the caller wants (`options.results`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResultView {
    /// Every field (the JS API's default).
    #[default]
    Full,
    /// Each fact once, paths relative to the workspace root: what a model
    /// reads back (the MCP server's default; see `result::view`).
    Compact,
}

/// The journal of a call's workspace (see `docs/journal.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalConfig {
    /// `false`: nothing is recorded (and `history`/`undo` see nothing new).
    pub enabled: bool,
    /// The base directory holding one journal per workspace; `None`: the
    /// per-user state directory's `journal/`.
    pub dir: Option<std::path::PathBuf>,
    /// Most transactions kept per workspace (oldest evicted first).
    pub max_entries: u64,
    /// Most bytes kept per workspace (oldest evicted first).
    pub max_bytes: u64,
    /// Largest file whose previous content is kept; a transaction touching
    /// a larger file is recorded without content and is not undoable.
    pub max_file_bytes: u64,
}

/// Default [`JournalConfig::max_entries`].
pub const JOURNAL_MAX_ENTRIES: u64 = 500;
/// Default [`JournalConfig::max_bytes`] (256 MiB).
pub const JOURNAL_MAX_BYTES: u64 = 256 << 20;
/// Default [`JournalConfig::max_file_bytes`] (32 MiB).
pub const JOURNAL_MAX_FILE_BYTES: u64 = 32 << 20;

impl Default for JournalConfig {
    fn default() -> Self {
        JournalConfig {
            enabled: true,
            dir: None,
            max_entries: JOURNAL_MAX_ENTRIES,
            max_bytes: JOURNAL_MAX_BYTES,
            max_file_bytes: JOURNAL_MAX_FILE_BYTES,
        }
    }
}

/// A call's cancellation: a flag the caller can raise and a deadline.
/// Checked between the steps of a call and last just before its commit;
/// once the commit starts it completes (an edit is never half done).
#[derive(Debug, Clone, Default)]
pub struct Cancel {
    flag: Option<Arc<AtomicBool>>,
    deadline: Option<(Instant, u64)>,
}

impl PartialEq for Cancel {
    fn eq(&self, other: &Self) -> bool {
        let same_flag = match (&self.flag, &other.flag) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_flag && self.deadline == other.deadline
    }
}

impl Eq for Cancel {}

impl Cancel {
    /// A cancellation raised through `token` (see [`cancel_tokens`]) or
    /// after `timeout_ms` from now.
    pub fn new(token: Option<u64>, timeout_ms: Option<u64>) -> Cancel {
        Cancel {
            flag: token.and_then(cancel_tokens::flag),
            deadline: timeout_ms
                .map(|ms| (Instant::now() + std::time::Duration::from_millis(ms), ms)),
        }
    }

    /// When the time budget ends, if it has one.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline.map(|(at, _)| at)
    }

    /// Whether the caller gave up or the time is spent, and which (the
    /// printer words it: `printer::go_on`).
    pub fn stopped(&self) -> Option<Stopped> {
        if self
            .flag
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
        {
            return Some(Stopped { timeout_ms: None });
        }
        match self.deadline {
            Some((at, ms)) if Instant::now() >= at => Some(Stopped {
                timeout_ms: Some(ms),
            }),
            _ => None,
        }
    }
}

/// A call stopped before it wrote anything: by its caller (`timeout_ms`
/// None), or by its time budget of `timeout_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped {
    pub timeout_ms: Option<u64>,
}

/// Cancellation tokens for calls made from JavaScript: the JS wrapper takes
/// a token before a call, raises it when its `AbortSignal` fires, and
/// releases it when the call is answered.
pub mod cancel_tokens {
    use super::*;

    /// Most tokens alive at once (a caller that never releases cannot grow
    /// the table without bound: the oldest are forgotten).
    const MAX_TOKENS: usize = 1 << 16;

    fn table() -> &'static Mutex<HashMap<u64, Arc<AtomicBool>>> {
        static T: OnceLock<Mutex<HashMap<u64, Arc<AtomicBool>>>> = OnceLock::new();
        T.get_or_init(Default::default)
    }

    /// A new token.
    pub fn take() -> u64 {
        // Ids fit JavaScript's 32-bit integers; after wrapping, the live ones
        // (at most MAX_TOKENS) are long gone.
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let id = NEXT.fetch_add(1, Ordering::Relaxed) % u64::from(u32::MAX) + 1;
        let mut t = table().lock().unwrap_or_else(|p| p.into_inner());
        if t.len() >= MAX_TOKENS {
            let oldest = *t.keys().min().expect("not empty");
            t.remove(&oldest);
        }
        t.insert(id, Arc::new(AtomicBool::new(false)));
        id
    }

    /// Raises `id` (a call using it stops before writing).
    pub fn raise(id: u64) {
        if let Some(f) = table().lock().unwrap_or_else(|p| p.into_inner()).get(&id) {
            f.store(true, Ordering::Relaxed);
        }
    }

    /// Forgets `id`.
    pub fn release(id: u64) {
        table()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
    }

    pub(crate) fn flag(id: u64) -> Option<Arc<AtomicBool>> {
        table()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&id)
            .cloned()
    }
}

/// Default for [`Options::lock_wait_ms`].
pub const DEFAULT_LOCK_WAIT_MS: u64 = 10_000;
/// Longest [`Options::lock_wait_ms`] accepted: ten minutes.
pub const MAX_LOCK_WAIT_MS: u64 = 600_000;

/// What a write does to a file that has other hard links (`hardLinks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HardLinks {
    /// Refuse with `HARD_LINKED_FILE` (the default): neither way is safe
    /// without the caller's word.
    #[default]
    Refuse,
    /// Replace this name only; the other names keep the old content.
    Split,
    /// Write the file in place: every name, wherever it is, sees the edit.
    Keep,
}

/// Default for [`Options::max_file_bytes`]: 1 GiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1 << 30;
/// Default for [`Options::dry_run_ttl_secs`].
pub const DEFAULT_DRY_RUN_TTL_SECS: u64 = 300;
/// Longest [`Options::dry_run_ttl_secs`] accepted: one day.
pub const MAX_DRY_RUN_TTL_SECS: u64 = 86_400;
/// Most edits accepted in one call.
pub const MAX_EDITS: usize = 10_000;
/// Most files accepted in one batch.
pub const MAX_BATCH_FILES: usize = 10_000;

names! {
    /// A difference tolerant matching may ignore (the `match` option).
    pub enum Tolerance {
        LineEndings = "line_endings",
        TrailingWhitespace = "trailing_whitespace",
        Indentation = "indentation",
        UnicodePunctuation = "unicode_punctuation",
    }
}

impl Tolerance {
    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// How search blocks are matched: exactly (the default) or with tolerances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct MatchMode {
    bits: u8,
}

impl MatchMode {
    /// Byte-exact matching only.
    pub const EXACT: MatchMode = MatchMode { bits: 0 };

    /// A mode tolerating `ts`.
    pub fn with(ts: &[Tolerance]) -> Self {
        MatchMode {
            bits: ts.iter().fold(0, |b, t| b | t.bit()),
        }
    }

    pub fn is_exact(self) -> bool {
        self.bits == 0
    }

    pub fn has(self, t: Tolerance) -> bool {
        self.bits & t.bit() != 0
    }

    /// The tolerances, in report order.
    pub fn tolerances(self) -> Vec<Tolerance> {
        Tolerance::ALL
            .iter()
            .copied()
            .filter(|&t| self.has(t))
            .collect()
    }

    /// Reads the `match` field: `"exact"` or a list of tolerance names.
    /// The error says what was wrong, as the value sent.
    pub fn from_json(v: &Value) -> Result<MatchMode, BadMatch> {
        match v {
            Value::String(s) if s == "exact" => Ok(MatchMode::EXACT),
            Value::Array(items) => {
                let mut ts = Vec::with_capacity(items.len());
                for it in items {
                    match it.as_str().and_then(Tolerance::parse) {
                        Some(t) => ts.push(t),
                        None => return Err(BadMatch::UnknownTolerance(it.to_string())),
                    }
                }
                Ok(MatchMode::with(&ts))
            }
            other => Err(BadMatch::NotAList(other.to_string())),
        }
    }
}

/// A `match` value that is neither `"exact"` nor a list of tolerances,
/// with the JSON sent (the printer words it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadMatch {
    /// A list naming something that is not a tolerance (this item).
    UnknownTolerance(String),
    /// Not a list (this value).
    NotAList(String),
}

/// Why a planned change failed the plan check (`matching::verify`): the
/// facts, which `printer::unverified` words. Line numbers are 0-based; an
/// ending is named as the check names it (`LF`, `CRLF`, `no line break`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unverified {
    /// The text on `side` has `lines` lines where the caller's has `callers`.
    LineCount {
        side: PlanSide,
        lines: usize,
        callers: usize,
    },
    /// Line `i` on `side` (`line`) is not the caller's (`callers`) under
    /// the tolerated differences.
    LineText {
        side: PlanSide,
        i: usize,
        line: Vec<u8>,
        callers: Vec<u8>,
    },
    /// Line `i` on `side` ends with `end` where the caller's ends with
    /// `callers`.
    LineEnd {
        side: PlanSide,
        i: usize,
        end: &'static str,
        callers: &'static str,
    },
    /// A change that takes the line break after it writes something.
    TakesBreakWrites,
    /// A block that takes its line break starts inside a line.
    TakesBreakMidLine,
    /// A change that takes the line break after it has none after the
    /// caller's text.
    TakesBreakNone,
    /// A line break added other than after a last line that has none.
    AddsBreakNotLast,
    /// The line break to add after the last line is missing.
    AddedBreakMissing,
    /// Line `j` written (`written`, with its ending) is one the caller kept
    /// but not the file's (`file`, with its ending).
    KeptLine {
        j: usize,
        written: (Vec<u8>, &'static str),
        file: (Vec<u8>, &'static str),
    },
    /// Line `j` written ends with `end`, which the file does not use.
    EndingNotUsed { j: usize, end: &'static str },
    /// The text written leaves a lone CR.
    LoneCr,
    /// The change of bytes `start..end` is out of order or out of bounds.
    OutOfBounds { start: usize, end: usize },
}

/// Why a tolerant match's replacement cannot be fitted to the file with
/// certainty (`matching::tolerant`): the facts, which `printer::unfitted`
/// words in the caller's spellings. Line numbers are 0-based.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unfitted {
    /// Line `j` of the replacement (`line`) has no certain indentation in
    /// the file.
    Unplaced {
        j: usize,
        line: String,
        why: Unplaced,
    },
    /// Line `j` of the replacement (`line`) keeps the text of line `i` of
    /// the search text but indents it in another style (`styles`: the
    /// replacement line's, then the search line's: tabs, spaces, or both).
    Restyled {
        j: usize,
        line: String,
        i: usize,
        styles: (&'static str, &'static str),
    },
    /// Line `j` of the replacement (`line`) repeats line `i` of the search
    /// text where the match starts inside a line.
    RepeatsInside { j: usize, line: String, i: usize },
    /// The search and replacement texts, `lines` lines in all, differ too
    /// much to be paired line by line within the time allowed.
    TooLarge { lines: usize },
}

/// Why a replacement line's indentation has no certain counterpart in the
/// file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unplaced {
    /// It is indented like block lines the file indents in `n` ways.
    LikeSeveral(usize),
    /// It is indented relative to block lines the file indents in `n` ways.
    RelativeToSeveral(usize),
    /// It is `cols` columns from a block line, not a whole number of the
    /// block's `block_step`-column steps, where the file's are `file_step`.
    PartOfStep {
        cols: usize,
        block_step: usize,
        file_step: usize,
    },
    /// Mapped to the file's indentation, it is left of the first column.
    LeftOfFile,
    /// Its depth is one the block's lines do not show, and they show one
    /// depth only (on its side or the file's): the step is not known.
    NoStep,
    /// The lines it is placed among nest otherwise in the file (one goes
    /// in where the other stays level): no depth of it is certain.
    NestedOtherwise,
    /// It is indented like the search text's first line, sent without its
    /// indentation, where the block's other lines disagree.
    LikeStrippedFirst,
}

/// Why one search/replace edit (or SEARCH/REPLACE block) failed to plan:
/// the facts, which `printer::edit_miss` words in the caller's spellings.
/// How many places and which lines are beside it (`matching::exact`'s
/// `EditMiss`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditWhy {
    /// It is not ASCII, and the file is not valid UTF-8.
    NotAscii,
    /// Its search text was not found; `tolerant`: what `match` adds.
    NotFound { tolerant: TolerantNote },
    /// It occurs more than once; `hint`: unique-context hints were found.
    Ambiguous { hint: bool },
    /// It occurs a number of times other than the `expected`.
    CountMismatch {
        expected: usize,
        tolerant: TolerantNote,
    },
    /// Not found exactly, it occurs several times under the tolerances.
    TolerantAmbiguous,
    /// Not found exactly, it matches lines `span` (1-based, first and
    /// last) under the tolerances, where its replacement cannot be fitted.
    TolerantUncertain { span: (usize, usize), why: Unfitted },
    /// Its unique tolerant match is withheld; `applied`: because its
    /// replacement already stands in the file.
    Withheld { why: Withheld, applied: bool },
    /// The text after it (`size` bytes; `None`: more than the address
    /// space) could not be allocated.
    OutOfMemory { size: Option<usize> },
    /// A block whose plan failed the check.
    Unverified(Unverified),
    /// Blocks from this one on (`n` of them), whose text of `len` bytes
    /// could not be allocated.
    BlocksTooLarge { n: usize, len: usize },
    /// The call was stopped before it.
    Stopped(Stopped),
    /// Its search text starts with a line break, found at the end of line
    /// `line` (1-based), a line of only whitespace, and its replacement
    /// starts with whitespace, not a line break: written, that whitespace
    /// and the replacement's indentation would make one line.
    JoinsWhitespace { line: usize },
    /// Its search text starts with an LF, found as the LF of line `line`'s
    /// CRLF, and its replacement does not start with an LF: written, the
    /// CR would be left alone.
    SplitsCrlf { line: usize },
    /// Its search text ends with a CR, found as the CR of line `line`'s
    /// CRLF, and its replacement does not end with a CR: written, the LF
    /// would be left alone (that line's CRLF made LF).
    SplitsCrlfEnd { line: usize },
    /// Its search text ends with a line break and its replacement, not
    /// empty, does not, found where line `line` (1-based), after it, has
    /// text: written, that line would be joined to the replacement's last.
    JoinsNextLine { line: usize },
    /// Its search text ends inside line `line`'s indentation (spaces or
    /// tabs after its last line break) and its replacement, not empty, does
    /// not end with a line break and the same, found where that line has
    /// text: written, the line would lose or change its indentation.
    ReindentsLine { line: usize },
}

/// What the tolerances of `match` say about an edit they were not applied to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TolerantNote {
    /// Nothing: no tolerances were asked for, or they do not apply here.
    Nothing,
    /// An edit of one occurrence that they did not find either.
    NotEither,
    /// Not tried: the file is not valid UTF-8 (they read text).
    NotText,
    /// An edit of several occurrences (which they do not apply to): they
    /// would find `n` places, starting at `lines` (1-based).
    WouldFind { n: usize, lines: Vec<usize> },
}

/// Why a unique tolerant match is not written (`matching::guard`): the
/// facts, which `printer::withheld` words in the caller's spellings. `span`
/// is the 1-based first and last line the match covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Withheld {
    /// The replacement already stands exactly at lines `at`, outside the
    /// match.
    AppliedElsewhere {
        span: (usize, usize),
        at: (usize, usize),
    },
    /// The replacement already stands exactly at lines `at`, inside it.
    AppliedInside {
        span: (usize, usize),
        at: (usize, usize),
    },
    /// The replacement stands there and the blank line the edit deletes is
    /// another blank line of the file.
    DeletedBlankElsewhere { span: (usize, usize) },
    /// Search and replacement differ only by what the tolerances forgive.
    OwnReplacement {
        span: (usize, usize),
        matched_with: Vec<Tolerance>,
    },
    /// The block is lone characters or punctuation (`chars` of them
    /// besides whitespace; `alphanumeric`: some are letters or digits).
    TooLittleText {
        span: (usize, usize),
        chars: usize,
        alphanumeric: bool,
    },
    /// Lines `other` are much like the block too (`similarity_milli`
    /// thousandths; `one_line`: the other place is one line).
    Rival {
        span: (usize, usize),
        other: (usize, usize),
        one_line: bool,
        similarity_milli: u32,
    },
    /// The fitted replacement fails the plan check.
    Unverified {
        span: (usize, usize),
        why: Unverified,
    },
}

/// Which text of a change the plan check compares with the caller's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanSide {
    /// The file's text the change replaces (against the search text).
    Replaced,
    /// The text the change writes (against the replacement).
    Written,
}

/// Which format a plan came from (reported in results).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    EditBlocks,
    ApplyPatch,
    UnifiedDiff,
    TextEditor,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 4] = [
        Format::EditBlocks,
        Format::ApplyPatch,
        Format::UnifiedDiff,
        Format::TextEditor,
    ];

    /// The name results give it.
    pub fn name(self) -> &'static str {
        match self {
            Format::EditBlocks => "edit_blocks",
            Format::ApplyPatch => "apply_patch",
            Format::UnifiedDiff => "unified_diff",
            Format::TextEditor => "text_editor",
        }
    }
}

/// Every file operation of one text, applied together or not at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpPlan {
    pub format: Format,
    pub ops: Vec<FileOp>,
}

/// One operation on one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOp {
    /// The path as written in the text (relative to the workspace root, or
    /// absolute inside it).
    pub path: String,
    /// 1-based line of the text where the operation is declared (0 when the
    /// input was not a text, e.g. a text-editor command).
    pub line: usize,
    pub action: FileAction,
}

/// What happens to the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileAction {
    /// The file's new text is `base` with `changes` applied; with `move_to`
    /// the result is written there and the original removed.
    Write {
        base: Base,
        changes: Changes,
        move_to: Option<String>,
    },
    /// Remove the file. With `verify`, the hunks (all removals) must consume
    /// the whole current text first (a unified diff's deletion names the
    /// content it expects).
    Delete { verify: Option<Vec<Hunk>> },
}

/// What the changes start from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// The file's current text; the file must exist.
    Existing,
    /// A new text. With `replace` an existing file is replaced (Codex
    /// `Add File`); without it the file must not exist.
    New { text: String, replace: bool },
}

/// How the text changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changes {
    None,
    /// Exact-once replacements, applied in order.
    Blocks(Vec<Block>),
    /// Line-based hunks, in file order, located with tolerance levels.
    Hunks(Vec<Hunk>),
    /// Insert `text` after 1-based line `after_line` (0: at the top).
    Insert {
        after_line: usize,
        text: String,
    },
}

/// One exact-once replacement (a SEARCH/REPLACE block, a `str_replace`).
/// Both texts are as written by the caller; their line breaks follow the
/// file's when the file uses CRLF throughout (see
/// `crate::codec::source::adapt_line_endings`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub search: String,
    pub replace: String,
    /// 1-based line of the block in the text (0 for commands).
    pub line: usize,
    /// How the caller named the two texts (`old_str`/`new_str` for a
    /// command; a SEARCH/REPLACE block's are its SEARCH and REPLACE text).
    pub said: Said,
}

/// A hunk line's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Context,
    Remove,
    Add,
}

/// One line of a hunk, without its line break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkLine {
    pub kind: LineKind,
    pub text: String,
    /// The line ended with CRLF in the patch.
    pub cr: bool,
    /// Followed by `\ No newline at end of file` (unified diff).
    pub no_eol: bool,
}

/// How a hunk's added lines end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HunkStyle {
    /// Codex: every added line ends with a line break.
    Codex,
    /// Unified diff: except the one marked `\ No newline at end of file`.
    Unified,
}

/// A line-based change: context and removed lines locate it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// `@@ context` lines (Codex), located one after another before the body.
    pub anchors: Vec<String>,
    pub lines: Vec<HunkLine>,
    /// The body must end at the end of the file (`*** End of File`, or a
    /// removed/context line without a final newline).
    pub at_eof: bool,
    /// 1-based first old line from a unified `@@ -l,n` header: only a hint.
    /// It places a hunk without old lines; for [`HunkStyle::Unified`] it
    /// also chooses among several equal places the one starting there.
    pub old_start: Option<usize>,
    /// 1-based line of the hunk header in the patch.
    pub line: usize,
    pub style: HunkStyle,
}

impl Hunk {
    /// The old side (context and removed lines), in order.
    pub fn old_lines(&self) -> impl Iterator<Item = &HunkLine> {
        self.lines.iter().filter(|l| l.kind != LineKind::Add)
    }
}
