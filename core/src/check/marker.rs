//! What counts as an elision marker: a line an agent writes to mean "keep
//! the lines that were here" (`// ... existing code ...`, `# ... rest
//! unchanged`, `<!-- ... -->`, `/* ... */`, `// existing code here`).
//!
//! A line is a marker when, after removing one comment opener and closer
//! of any common language (the file's language is not needed: a marker in
//! another language's comment syntax means the same) and brackets around
//! the whole of it, it is either
//! - dots (`...`, `…`) inside a comment or brackets with nothing else
//!   (`// ...`, `# …`, `/* ... */`, `// [...]`), or
//! - dots first and at most [`MAX_WORDS`] words (twice as many between
//!   dots at both ends), one of them a word of keeping ([`KEEP_WORDS`]:
//!   `existing`, `unchanged`, `rest`, `remaining`, …) or a phrase of it
//!   ([`DOTS_PHRASES`]: `as before`, `as is`), none a word of work left
//!   to do ([`TODO_WORDS`]); numbers and names may stand among them
//!   (`lines 10-40`, `rest of __init__`, `main.rs`), or
//! - words ending with dots that open with a word of keeping that says so
//!   alone ([`OPENING_WORDS`]: `// existing code ...`, not `// Other
//!   fields are ignored...`) and are all of a marker's vocabulary
//!   ([`VOCABULARY`]), or
//! - without dots, inside a comment or brackets, a phrase of keeping
//!   ([`PHRASES`]: `existing code`, `rest of the file`, `remains
//!   unchanged`, …, or one word such as `unchanged`) in at most
//!   [`MAX_WORDS`] words, all of a marker's vocabulary: a comment that
//!   says more (`// Keep existing behaviour for old clients`, `// Same as
//!   before, but async`) is a comment; or `rest of` and up to three
//!   names, the whole comment (`// rest of the loop`), or
//! - a phrase of keeping in Chinese or Japanese ([`CJK_PHRASES`]), the
//!   whole comment, or
//! - what is kept named, then how (`# lint job unchanged`, `// keep
//!   total() as is`: [`named_kept`]), or
//! - a list's item whose dots come first (`- ...`, `+ … existing steps …`).
//!
//! After dots, [`AFTER_DOTS`] and Chinese or Japanese words opening with
//! [`CJK_KEPT`] say lines are kept too (`// ... similar for x`, `// ...
//! otras funciones`, `// ... 其他字段不变`).
//!
//! Not markers: bare dots (`...`: code in Python (`Ellipsis`), YAML (the
//! end of a document) and prose); dots glued to a name outside a comment
//! (`...rest`, `...existing,`: spread and rest in JavaScript and
//! TypeScript); a phrase of keeping outside a comment (`The public API
//! remains unchanged.`: prose in Markdown and text files).

/// Most words a marker line holds (dots aside); twice as many between
/// dots at both ends.
pub(crate) const MAX_WORDS: usize = 8;

/// Words that say lines are kept (with dots).
pub(crate) const KEEP_WORDS: &[&str] = &[
    "existing",
    "unchanged",
    "rest",
    "remaining",
    "remainder",
    "same",
    "previous",
    "prior",
    "other",
    "others",
    "omitted",
    "elided",
    "original",
    "untouched",
    "unmodified",
    "kept",
    "keep",
    "more",
    "etc",
    "code",
    "content",
    "contents",
    "lines",
    "implementation",
    "body",
    "skipped",
    "snip",
    "truncated",
    "continues",
    "continued",
    "everything",
];

/// What is kept, named between dots at both ends (`# ... fields ...`,
/// `// ... methods ...`): a marker then, though no word of keeping says so.
pub(crate) const KEPT_NOUNS: &[&str] = &[
    "fields",
    "methods",
    "functions",
    "imports",
    "tests",
    "properties",
    "members",
    "cases",
    "entries",
    "items",
    "options",
    "settings",
    "routes",
    "handlers",
    "helpers",
    "definitions",
    "declarations",
    "exports",
    "statements",
    "components",
    "styles",
    "rules",
    "queries",
    "continue",
    // What a body does, between dots (`// ... validation logic ...`, `//
    // ... error handling ...`).
    "logic",
    "handling",
    "setup",
    "validation",
    "parsing",
    "initialization",
    "body",
    "config",
    "configuration",
    "cleanup",
    "checks",
    "loop",
    "loops",
];

/// Words of keeping that say so alone, first in a line that ends with
/// dots (`// existing code ...`); `other`, `more`, `same` there open a
/// sentence that trails off (`// More to come...`).
pub(crate) const OPENING_WORDS: &[&str] = &[
    "etc",
    "existing",
    "unchanged",
    "rest",
    "remaining",
    "remainder",
    "previous",
    "prior",
    "omitted",
    "elided",
    "original",
    "untouched",
    "unmodified",
    "skipped",
    "snip",
];

/// Phrases of keeping after dots (`// ... as before ...`).
pub(crate) const DOTS_PHRASES: &[&str] = &[
    "as before",
    "as is",
    "stays the same",
    "remain",
    "no changes",
    "no change",
    "and so on",
    "and so forth",
    "as above",
    "as-is",
    "continues",
];

/// Words that say lines are kept after dots only (`// ... similar for
/// number, boolean`, `// ... repeat for all tables`), and words of keeping
/// in other languages there (`// ... otras funciones`, `// ... restliche
/// Logik`, `// ... остальные поля`, `// ... 기존 필드`).
pub(crate) const AFTER_DOTS: &[&str] = &[
    "similar",
    "repeat",
    "resto",
    "otras",
    "otros",
    "outras",
    "outros",
    "autres",
    "restliche",
    "restlichen",
    "restlicher",
    "weitere",
    "weiteren",
    "altre",
    "altri",
    "pozostałe",
    "остальные",
    "остальной",
    "остальная",
    "остальное",
    "остальных",
    "기존",
    "나머지",
];

/// What opens a word of keeping in Chinese and Japanese, after dots (`//
/// ... 其他字段不变`, `# ... 其余实现`, `// ... 既存フィールド`).
const CJK_KEPT: &[&str] = &["其他", "其它", "其余", "其餘", "既存"];

/// Words that say work is left to do: a comment holding one is a note, not
/// a marker.
pub(crate) const TODO_WORDS: &[&str] =
    &["todo", "fixme", "hack", "xxx", "note", "bug", "implement"];

/// Phrases that make a marker without dots.
pub(crate) const PHRASES: &[&str] = &[
    "existing code",
    "existing content",
    "existing implementation",
    "existing methods",
    "existing imports",
    "existing tests",
    "rest of the code",
    "rest of code",
    "rest of the file",
    "rest of file",
    "rest of the function",
    "rest of function",
    "rest of the class",
    "rest of the method",
    "rest of the implementation",
    "rest of the module",
    "rest unchanged",
    "remains unchanged",
    "remain unchanged",
    "remains the same",
    "remain the same",
    "stays the same",
    "unchanged code",
    "code unchanged",
    "code omitted",
    "lines omitted",
    "omitted for brevity",
    "keep existing",
    "same as before",
    "keep as is",
    "leave as is",
    "previous code",
    "original code",
    "existing logic",
    "the rest",
    "keep everything",
    "and so on",
    "as above",
    "as before",
    "keep rest",
    "previous implementation",
    "prior code",
    "old code",
    "other imports",
    "other methods",
    "other fields",
    "other tests",
    "existing fields",
    "existing stuff",
    "remaining tests",
    "remaining methods",
    "remaining code",
    "code continues",
    "no changes here",
    "no other changes",
    "everything else the same",
    "everything else stays",
    "everything else as is",
    "everything above stays",
    "keep the others",
    "same as original",
    "same as the original",
    "unchanged from original",
    "as in the original",
    "previous content",
    "no change here",
    "previous methods",
    "previous functions",
    "functions remain",
    "methods remain",
    "rest is identical",
    "rest is the same",
    "is identical",
    "and so forth",
    "your code",
    "your other code",
    "other code here",
    "no changes below",
    "no changes above",
    "unchanged below",
    "unchanged above",
    "existing body",
    "original body",
    "same body",
    "more code here",
    "keep original",
    "keep the original",
    "no changes to the rest",
    "original implementation",
    "identical to before",
    "remains exactly the same",
    "remain exactly the same",
    "remains same",
    "remain same",
];

/// Elisions in Chinese and Japanese (`// ... 其他代码 ...`, `// ...省略...`,
/// `# 其余代码保持不变`, `// 既存のコード`), each a comment of twelve
/// letters at most.
pub(crate) const CJK_PHRASES: &[&str] = &[
    "其他代码",
    "其余代码",
    "现有代码",
    "原有代码",
    "其他部分",
    "其余部分",
    "保持不变",
    "省略",
    "不变",
    "既存のコード",
    "既存コード",
    "変更なし",
    "以下同じ",
    "同上",
    "其余代码保持不变",
    "其他代码保持不变",
    "代码保持不变",
    "其余部分保持不变",
    "其他代码不变",
    "其余不变",
    "此处省略",
    "代码省略",
    "既存のコードはそのまま",
    "既存コードはそのまま",
    "以下省略",
];

/// Words that make a phrase of keeping alone, as a comment's one word
/// (`// (unchanged)`, `/* omitted */`).
const ALONE: &[&str] = &[
    "etc",
    "continued",
    "truncated",
    "unchanged",
    "omitted",
    "elided",
    "snip",
    "untouched",
    "unmodified",
];

/// The words a marker without dots is made of (besides [`KEEP_WORDS`]):
/// what is kept, and how it is said to be kept.
pub(crate) const VOCABULARY: &[&str] = &[
    "the",
    "of",
    "a",
    "an",
    "and",
    "all",
    "as",
    "is",
    "are",
    "here",
    "goes",
    "go",
    "for",
    "brevity",
    "this",
    "that",
    "these",
    "those",
    "file",
    "function",
    "functions",
    "class",
    "classes",
    "method",
    "methods",
    "module",
    "import",
    "imports",
    "test",
    "tests",
    "remains",
    "remain",
    "stays",
    "stay",
    "before",
    "above",
    "below",
    "else",
    "everything",
    "in",
    "place",
    "left",
    "as-is",
    "items",
    "fields",
    "properties",
    "members",
    "entries",
    "cases",
    "options",
    "settings",
    "config",
    "styles",
    "rules",
    "routes",
    "handlers",
    "helpers",
    "logic",
    "definitions",
    "declarations",
    "exports",
    "statements",
    "section",
    "sections",
    "page",
    "file's",
    "component",
    "components",
    "your",
    "leave",
    "no",
    "changes",
    "script",
    "query",
    "queries",
    "html",
    "markup",
    "template",
    "css",
    "continues",
    "so",
    "on",
    "insert",
    "line",
    "change",
    "continued",
    "stuff",
    "old",
    "identical",
    "alone",
    "forth",
    "steps",
    "jobs",
    "keys",
    "document",
    "constructor",
    "from",
    "others",
    "to",
    "put",
    "header",
    "footer",
    // What a body does (`// validation unchanged`, `// (parsing
    // unchanged)`): a marker only with a phrase or word of keeping.
    "parsing",
    "validation",
    "setup",
    "initialization",
    "cleanup",
    "handling",
    "error",
    "checks",
    "loop",
    "loops",
    "skipping",
    "inputs",
    // `remains exactly the same`, `// getters and setters omitted`.
    "exactly",
    "getters",
    "setters",
    "accessors",
    "constructors",
];

/// Words that, before a kind of code ([`CODE_NOUNS`]), make a phrase of
/// keeping (`// other functions`, `// remaining fields`, `# prior methods`).
const KEPT_BEFORE: &[&str] = &[
    "previous",
    "prior",
    "existing",
    "other",
    "remaining",
    "original",
    "unchanged",
];

/// Kinds of code an elision names after [`KEPT_BEFORE`]. Not the words of
/// section comments in real code (`// Other cases` before `default:`,
/// `// other settings`, `// Other routes`, `// Other helpers`): read as
/// markers beside code a change deletes, they brought it back. (The kinds
/// kept are those elisions name most; a new section comment with one of
/// them, beside code the change deletes, is read as a marker.)
const CODE_NOUNS: &[&str] = &[
    "functions",
    "methods",
    "fields",
    "properties",
    "members",
    "tests",
    "imports",
    "code",
    "lines",
    "logic",
    "items",
    "jobs",
    "rules",
];

/// What a body or a page holds, named after `existing` as the whole
/// comment (`{/* existing components */}`, `/* existing styles */`, `//
/// existing error handling`); not `settings`, `routes`, `items`: `//
/// existing settings` heads a section of real code.
const EXISTING_NOUNS: &[&str] = &[
    "components",
    "elements",
    "markup",
    "styles",
    "content",
    "contents",
    "logic",
    "body",
    "code",
    "error",
    "handling",
    "validation",
    "setup",
    "jsx",
    "html",
    "template",
    "commands",
    "loop",
    "loops",
    "inputs",
    "steps",
    "jobs",
];

/// What says lines are kept when in brackets of its own (`// (same)`,
/// `// [no changes]`); bare, `* No changes` is a changelog's bullet.
const BRACKETED: &[&str] = &["same", "no changes", "no change", "as is", "as-is"];

/// Comment openers, longest first.
/// Besides C, shell, HTML, SQL, Lisp, Lua, TeX, VB and batch comments: the
/// comments of template languages (Handlebars `{{!-- --}}` `{{! }}`, Go
/// templates `{{/* */}}`, Blade `{{-- --}}`, JSP `<%-- --%>`, ERB `<%#
/// %>`, Jinja and Twig `{# #}`, Razor `@* *@`), Haskell `{- -}`,
/// PowerShell `<# #>`, Lua's long `--[[ ]]`, Nim `#[ ]#`, Julia `#= =#`,
/// D `/+ +/`, MATLAB `%{ %}` and `%%`, a Markdown link comment `[//]: #
/// (...)`, reStructuredText `.. `, Fortran `! `, batch `::`, COBOL `*>`,
/// ColdFusion `<!--- --->`, and doc comments (`//!`, `/*! */`).
const OPENERS: &[&str] = &[
    "[//]: #", "{{!--", "<!---", "{{/*", "{{--", "<%--", "--[[", "{{!", "<%#", "{/*", "<!--", "/*",
    "(*", "{#", "{-", "@*", "<#", "#[", "#=", "/+", "%{", "%%", ".. ", "! ", "*>", "::", "//",
    "--", "#", ";", "*", "%", "'", "\"", "rem ",
];
/// Comment closers, longest first.
const CLOSERS: &[&str] = &[
    "--}}", "*/}}", "--%>", "--->", "*/}", "*/;", "-->", "}}", "%>", "*@", "#>", "]]", "]#", "=#",
    "+/", "%}", "-}", "#}", "*/", "*)", "#",
];

/// Byte patterns a marker line holds at least one of (ASCII, any case): the
/// prefilter looks for them before any line is split.
pub(crate) const KEYWORDS: &[&str] = &[
    "...",
    "\u{2026}",
    "existing",
    "unchanged",
    "rest of",
    "remain",
    "omitted",
    "same as before",
    "stays the same",
    "elided",
    "untouched",
    "unmodified",
    "snip",
    "as is",
    "no change",
    "previous code",
    "original code",
    "the rest",
    "etc",
    "and so on",
    "as above",
    "keep everything",
    "truncated",
    ". . .",
    "..]",
    "\u{22EE}",
    "\u{22EF}",
    "\u{2025}",
    "remainder of",
    "more code",
    "keep original",
    "keep the original",
    " lines]",
    " lines)",
    "as before",
    "keep rest",
    "previous",
    "prior code",
    "old code",
    "other ",
    "remaining",
    "continue",
    "everything",
    "and so forth",
    "as-is",
    "same",
    "identical",
    "prior",
    "original",
    "your code",
    "其他",
    "其余",
    "现有",
    "原有",
    "不变",
    "省略",
    "既存",
    "変更なし",
    "以下同",
    "同上",
    // Other languages' elisions: words of `FOREIGN_PHRASES` (the
    // prefilter looks for the phrases too); a Cyrillic word without its
    // first letter, which may be a capital.
    "sin cambios",
    "existente",
    "resto d",
    "alterações",
    "inalterado",
    "inchangé",
    "existant",
    "reste du",
    "sans changement",
    "unverändert",
    "restlicher",
    "bestehender",
    "vorhandener",
    "invariato",
    "esistente",
    "bez zmian",
    "istniejący",
    "reszta",
    "mevcut kod",
    "değişiklik yok",
    "geri kalan",
    "код",
    "ез изменений",
    "стально",
    "기존",
    "나머지",
    "原代码",
    "原样",
    "其餘",
    "不變",
    "現有",
];

/// Characters that are dots alone: the ellipsis, the vertical and
/// midline ellipses (`⋮`, `⋯`) and the two-dot leader (`‥`).
fn ellipsis(c: char) -> bool {
    matches!(c, '\u{2026}' | '\u{22EE}' | '\u{22EF}' | '\u{2025}')
}

fn is_dots(w: &str) -> bool {
    !w.is_empty() && (w.chars().all(ellipsis) || (w.len() >= 3 && w.bytes().all(|b| b == b'.')))
}

/// Characters taken off a word's ends: dots, brackets, punctuation, an
/// arrow's (`<-- existing code -->`), emphasis (`// *snip*`); not quotes, so that a marker inside a
/// string literal (`"// ... existing code ...",`, a test's data) stays
/// code.
fn edge(c: char) -> bool {
    matches!(
        c,
        '.' | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | ','
            | ':'
            | '!'
            | '<'
            | '>'
            | '-'
            | '~'
            | '='
            | '*'
    )
}

/// `body` without brackets that wrap the whole of it (`[...]`, `(rest
/// unchanged)`), and whether it had them.
fn unbracket(body: &str) -> (&str, bool) {
    for (open, close) in [('[', ']'), ('(', ')'), ('{', '}')] {
        if let Some(inner) = body.strip_prefix(open).and_then(|r| r.strip_suffix(close)) {
            if !inner.contains([open, close]) {
                return (inner.trim(), true);
            }
        }
    }
    (body, false)
}

/// Whether `body` holds dots glued to a name (`...rest`, `...existing,`):
/// spread or rest in code.
fn glued_dots(body: &str) -> bool {
    body.split_whitespace().any(|w| {
        let after = w.trim_start_matches(['(', '[', '{']);
        after
            .strip_prefix("...")
            .and_then(|r| r.chars().next())
            .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
    })
}

/// A word of letters (and `-'’/`).
fn alpha(w: &str) -> bool {
    w.chars().all(|c| c.is_alphabetic() || "-'’/".contains(c))
}

/// A number or a range of them (`10-40`, `120–180`).
fn number(w: &str) -> bool {
    w.chars().all(|c| c.is_ascii_digit() || "-–—,:".contains(c))
}

/// A name between dots (`# ... rest of __init__ unchanged ...`, `// ...
/// rest of main.rs ...`): a word, or letters and digits joined by `_` or
/// `.` (not a call: `init2()` after a comment is code).
fn name(w: &str) -> bool {
    alpha(w)
        || (w.contains(['_', '.'])
            && w.chars().any(char::is_alphabetic)
            && w.chars().all(|c| c.is_alphanumeric() || "_.-".contains(c)))
}

/// An elision written in Chinese or Japanese: the comment, its dots and
/// punctuation aside, is one of [`CJK_PHRASES`] (`不变量` in `// 检查不变量`
/// is a word of its own; a quoted `"其他代码",` is a string).
fn cjk(body: &str) -> bool {
    CJK_PHRASES.contains(&phrase_of(body))
}

/// `body` without the spaces, dots and punctuation around a phrase, the
/// full-width ones too (`// ...（中略）。`).
fn phrase_of(body: &str) -> &str {
    body.trim_matches(|c: char| {
        c.is_whitespace() || ellipsis(c) || edge(c) || "。，（）".contains(c)
    })
}

/// Elisions in other languages, each the whole comment (its dots and
/// punctuation aside), lower case: Spanish, Portuguese, French, German,
/// Italian, Polish, Turkish, Russian, Korean, Japanese and Chinese (the
/// phrases [`CJK_PHRASES`] does not hold).
pub(crate) const FOREIGN_PHRASES: &[&str] = &[
    "resto sin cambios",
    "sin cambios",
    "código existente",
    "resto del código",
    "el resto del código",
    "sem alterações",
    "resto do código",
    "o resto do código",
    "código inalterado",
    "reste inchangé",
    "code inchangé",
    "code existant",
    "reste du code",
    "le reste du code",
    "sans changement",
    "rest unverändert",
    "restlicher code",
    "bestehender code",
    "vorhandener code",
    "unverändert",
    "resto invariato",
    "codice esistente",
    "resto del codice",
    "il resto del codice",
    "reszta bez zmian",
    "istniejący kod",
    "bez zmian",
    "reszta kodu",
    "mevcut kod",
    "değişiklik yok",
    "kodun geri kalanı",
    "остальной код без изменений",
    "остальной код",
    "существующий код",
    "без изменений",
    "остальное без изменений",
    "기존 코드 유지",
    "기존 코드",
    "나머지 코드",
    "생략",
    "변경 없음",
    "중략",
    "中略",
    "後略",
    "以下略",
    "既存の処理",
    "省略其他代码",
    "原代码不变",
    "这里保持原样",
    "保持原样",
    "其餘程式碼不變",
    "其餘不變",
    "現有程式碼",
];

/// An elision in another language ([`FOREIGN_PHRASES`]), the whole comment.
fn foreign(body: &str) -> bool {
    let bare = phrase_of(body).to_lowercase();
    FOREIGN_PHRASES.contains(&bare.as_str())
}

/// What Markdown emphasis (`*`, `**`, `_`, `__`) wraps, when the whole
/// line is emphasis around brackets or dots (`*(unchanged)*`, `_...
/// existing content ..._`).
fn emphasized(t: &str) -> Option<&str> {
    ["**", "__", "*", "_"].iter().find_map(|m| {
        let inner = t.strip_prefix(m)?.strip_suffix(m)?.trim();
        let opens = inner.starts_with(['(', '[', '.', '\u{2026}']);
        let closes = inner.ends_with([')', ']', '.', '\u{2026}']);
        (!inner.is_empty() && opens && closes).then_some(inner)
    })
}

/// `rest of` and what is kept, three names at most, the whole comment
/// (`// rest of the loop`, `{/* rest of JSX */}`, `// (rest of the switch
/// cases)`); more is a sentence (`// rest of the items are ignored`).
fn rest_of(words: &[&str]) -> bool {
    let words = words.strip_prefix(&["the"]).unwrap_or(words);
    words.len() > 2
        && words.len() <= 5
        && words[..2] == ["rest", "of"]
        && words.iter().all(|w| name(w))
}

/// Whether `line` (without its line break) is an elision marker (see the
/// module docs).
/// How the marker lines of one file are told: [`is_marker`], and in a
/// language where a line of dots alone is never code (JSON, JavaScript and
/// TypeScript, Go, Rust, Java, Kotlin, C#, Swift, CSS, C and C++, PHP,
/// Ruby, SQL, shell, TOML, Vue, Svelte, …), such a line too (`...`, `…`,
/// `...,`): the only elision a model can write in JSON, and in the others
/// a line the file cannot hold (C's variadic `...` stands in a parameter
/// list, not alone on a line). In Python (`...` is a statement), YAML (a
/// document's end) and Perl (a statement), three dots alone are code, but
/// an ellipsis character alone (`…`) is not, and is a marker. In prose
/// (Markdown, plain text, HTML, a file without an extension) neither is.
/// In JSON, a string of dots alone (`"...",`, `"...": "..."`) too: the
/// elision a model writes to keep the file valid.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Markers {
    /// `...` alone.
    pub(crate) bare_dots: bool,
    /// `…` alone.
    pub(crate) bare_ellipsis: bool,
    /// `"..."` alone, or as a key and its value.
    pub(crate) quoted_dots: bool,
}

/// Extensions of the languages where a line of dots alone is no code.
const NO_BARE_DOTS: &[&str] = &[
    "json",
    "jsonc",
    "json5",
    "js",
    "jsx",
    "mjs",
    "cjs",
    "ts",
    "tsx",
    "mts",
    "cts",
    "go",
    "rs",
    "java",
    "kt",
    "kts",
    "cs",
    "swift",
    "css",
    "scss",
    "less",
    "sass",
    "c",
    "h",
    "cc",
    "cpp",
    "cxx",
    "hpp",
    "hh",
    "hxx",
    "m",
    "mm",
    "php",
    "rb",
    "dart",
    "scala",
    "lua",
    "sql",
    "sh",
    "bash",
    "zsh",
    "toml",
    "tf",
    "hcl",
    "graphql",
    "gql",
    "proto",
    "vue",
    "svelte",
    "groovy",
    "gradle",
    "dockerfile",
    "ps1",
    "zig",
];

/// Extensions of prose, where dots alone leave out words: no line of dots
/// alone is a marker there.
const PROSE: &[&str] = &[
    "md", "markdown", "mdx", "txt", "text", "rst", "adoc", "asciidoc", "org", "tex", "html", "htm",
    "xml", "svg", "csv", "tsv", "log", "po", "pot",
];

impl Markers {
    /// The markers of the file named `path`.
    pub(crate) fn of(path: &str) -> Markers {
        let p = std::path::Path::new(path);
        let ext = p
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let docker = name.starts_with("Dockerfile") || name.starts_with("Containerfile");
        let ext = ext.as_deref().filter(|_| !docker);
        let code = docker || ext.is_some_and(|e| NO_BARE_DOTS.contains(&e));
        Markers {
            bare_dots: code,
            bare_ellipsis: code || ext.is_some_and(|e| !PROSE.contains(&e)),
            quoted_dots: ext.is_some_and(|e| e.starts_with("json")),
        }
    }

    /// Whether `line` is a marker in this file.
    pub(crate) fn is(self, line: &str) -> bool {
        is_marker(line)
            || (self.bare_ellipsis && bare_dots(line) && (self.bare_dots || !line.contains('.')))
            || (self.quoted_dots && quoted_dots(line))
    }
}

/// A JSON string of dots alone, or a key and value of them (`"...",`,
/// `"...": "..."`, `"...": ...`), but a trailing `,`.
fn quoted_dots(line: &str) -> bool {
    let t = line.trim();
    let t = t.strip_suffix(',').unwrap_or(t).trim_end();
    let dots = |v: &str| {
        let v = v.trim();
        is_dots(
            v.strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or(v),
        )
    };
    let quoted = |v: &str| v.trim().starts_with('"') && dots(v);
    match t.split_once(':') {
        Some((k, v)) => quoted(k) && dots(v),
        None => quoted(t),
    }
}

/// A line of dots alone ([`is_dots`]: three or more, or `…`), but a
/// trailing `,` or `;`.
fn bare_dots(line: &str) -> bool {
    let t = line.trim();
    is_dots(t.strip_suffix([',', ';']).unwrap_or(t).trim_end())
}

pub(crate) fn is_marker(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || t.len() > 160 {
        return false;
    }
    // Markdown emphasis around brackets or dots (`*(unchanged)*`, `_...
    // existing content ..._`, `**[...]**`): what it wraps.
    if let Some(inner) = emphasized(t) {
        return is_marker(inner);
    }
    // A Python placeholder statement with a marker comment (`...  # existing
    // code`, `pass  # rest of the function unchanged`): the comment says
    // what the line stands for.
    let placeheld = ["...", "pass"].iter().find_map(|s| {
        let rest = t.strip_prefix(s)?;
        let comment = rest.trim_start();
        (rest.len() > comment.len() && comment.starts_with('#')).then_some(comment)
    });
    if let Some(comment) = placeheld {
        return is_marker(comment);
    }
    // A list's item of dots (`- ...`, `+ … existing steps …`): Markdown's
    // and YAML's elision, the bullet read as a comment's opener; without
    // dots first, an item is prose (`- Rest unchanged` in a changelog).
    if let Some(item) = ["- ", "+ "].iter().find_map(|b| t.strip_prefix(b)) {
        let item = item.trim_start();
        let dotted = item.starts_with("...") || item.starts_with(ellipsis);
        return dotted && !glued_dots(item) && is_marker(&["# ", item].concat());
    }
    let lower = t.to_ascii_lowercase();
    let mut body = lower.as_str();
    let mut opened = None;
    for open in OPENERS {
        if let Some(r) = body.strip_prefix(open) {
            body = r
                .trim_start_matches(['/', '#', '*', '-', ';', '!'])
                .trim_start();
            opened = Some(*open);
            break;
        }
    }
    let commented = opened.is_some();
    for close in CLOSERS {
        if let Some(r) = body.strip_suffix(close) {
            body = r.trim_end();
            break;
        }
    }
    if !commented && glued_dots(body) {
        return false;
    }
    let (body, bracketed) = unbracket(body);
    // Angle brackets around the whole of a comment (`# <existing steps>`);
    // outside one, `<Existing steps>` is an element.
    let (body, bracketed) = match body.strip_prefix('<').and_then(|b| b.strip_suffix('>')) {
        Some(inner) if commented && !bracketed && !inner.contains(['<', '>']) => {
            (inner.trim(), true)
        }
        _ => (body, bracketed),
    };
    let enclosed = commented || bracketed;
    // Dots spaced out (`. . .`) are dots; so are two in brackets (`[..]`).
    let spaced;
    let body = if body.contains(". . .") {
        spaced = body.replace(". . .", "...");
        spaced.as_str()
    } else if bracketed && body == ".." {
        "..."
    } else {
        body
    };
    let has_dots = body.contains("...") || body.contains(ellipsis);
    // Words, their dots, brackets and punctuation taken off.
    let words: Vec<&str> = body
        .split(|c: char| c.is_whitespace() || ellipsis(c))
        .map(|w| w.trim_matches(edge))
        .filter(|w| !w.is_empty())
        .collect();
    if words.iter().any(|w| TODO_WORDS.contains(w)) {
        return false;
    }
    if enclosed && (cjk(body) || foreign(body) || rest_of(&words)) {
        return true;
    }
    if has_dots {
        return dotted(body, &words, opened, bracketed);
    }
    undotted(body, &words, opened, bracketed)
}

/// Whether a line with dots is a marker: `body` the line without its
/// comment opener (`opened`) and closer, nor brackets around the whole of
/// it (`bracketed`), `words` its words (see the module docs).
fn dotted(body: &str, words: &[&str], opened: Option<&str>, bracketed: bool) -> bool {
    let enclosed = opened.is_some() || bracketed;
    let keep = |w: &&str| KEEP_WORDS.contains(w);
    let known = |w: &&str| keep(w) || VOCABULARY.contains(w);
    // A word of dots, brackets aside (`...`, `[...]`).
    let dots = |w: &str| is_dots(w.trim_matches(['[', ']', '(', ')']));
    if words.is_empty() {
        return enclosed && body.split_whitespace().all(dots);
    }
    // Dots open the line (`// ... existing code`), or close a line that
    // opens with a word of keeping (`// existing code ...`): a comment of
    // prose that trails off (`// line beyond it, reached through kept
    // lines ...`, a real edit of this repository) is no marker.
    let starts = body.split_whitespace().next().is_some_and(|w| {
        w.trim_start_matches(['(', '[']).starts_with("...") || w.starts_with(ellipsis)
    });
    let ends = body.trim_end_matches([')', ']']).ends_with("...") || body.ends_with(ellipsis);
    // Dots glued to one name, the whole of a code comment (`{/* ...inputs
    // */}`, `// ...handlers`, `# ...fields`): what was left out, named. In
    // code, `...rest` is spread; alone in a comment it spreads nothing.
    if words.len() == 1
        && matches!(opened, Some("//" | "/*" | "{/*" | "#" | "<!--" | "--"))
        && body.strip_prefix("...") == Some(words[0])
        && alpha(words[0])
    {
        return true;
    }
    if starts {
        let most = if ends { 2 * MAX_WORDS } else { MAX_WORDS };
        let noun = |w: &&str| ends && KEPT_NOUNS.contains(w);
        let after = |w: &&str| AFTER_DOTS.contains(w) || CJK_KEPT.iter().any(|p| w.starts_with(p));
        // The rest and what is kept, named at length (`// ... (the rest
        // of the UI methods remain the same as before)`, `// ... (el resto
        // del código de subida se mantiene igual)`).
        let rest = |w: &&str| matches!(*w, "rest" | "resto" | "reste") || w.starts_with("остальн");
        let most = if words.iter().take(2).any(rest) {
            2 * MAX_WORDS
        } else {
            most
        };
        // Dots on both sides of a few words in a comment say what the
        // elided code does (`// ... validate input ...`, `# ... lint
        // job ...`): a description of code left out, whatever its words.
        // The dots stand apart: `// ...not where ... elsewhere...`
        // glued to its words is a sentence running on from the comment
        // before (a real edit of this repository).
        let mut tokens = body.split_whitespace();
        let described = ends
            && enclosed
            && tokens.next().is_some_and(dots)
            && tokens.next_back().is_some_and(dots);
        return words.len() <= most
            && words.iter().all(|w| name(w) || number(w))
            && (described
                || words.iter().any(|w| keep(w) || noun(w) || after(w))
                || DOTS_PHRASES.iter().any(|p| body.contains(p)));
    }
    // A phrase of keeping that trails off (`// and so on...`, `// the
    // rest...`, `// other methods…`): the phrase without its dots.
    let phrase = body.trim_end_matches(|c: char| c == '.' || ellipsis(c));
    if ends
        && !phrase.contains(['.', '\u{2026}'])
        && undotted(phrase.trim_end(), words, opened, bracketed)
    {
        return true;
    }
    // (`// Your existing code...`: the reader's code.)
    let words = words.strip_prefix(&["your"]).unwrap_or(words);
    ends && !words.is_empty()
        && words.len() <= MAX_WORDS
        && OPENING_WORDS.contains(&words[0])
        && words.iter().all(|w| alpha(w) && known(w))
}

/// Whether a line without dots is a marker: `body` the line without its
/// comment opener (`opened`) and closer, nor brackets around the whole of
/// it (`bracketed`), `words` its words.
fn undotted(body: &str, words: &[&str], opened: Option<&str>, bracketed: bool) -> bool {
    let enclosed = opened.is_some() || bracketed;
    let known = |w: &&str| KEEP_WORDS.contains(w) || VOCABULARY.contains(w);
    // Without dots, `*` opens a list's item (`* etc`, `* No changes`), not
    // a comment's line.
    if opened == Some("*") {
        return false;
    }
    // A phrase of keeping, `rest of` with what is kept (`rest of
    // implementation`), or a word that says it alone among words of the
    // vocabulary (`remaining methods unchanged`, `everything else
    // unchanged`).
    // Numbers only where they number lines (`// lines 4-7 unchanged`).
    let lines = words.iter().any(|w| *w == "lines" || *w == "line");
    // A count of lines in brackets (`// [3 lines]`, `(12 more lines)`).
    if bracketed && matches!(words, [n, "lines"] | [n, "more", "lines"] if number(n)) {
        return true;
    }
    // `// no change(s)`, the whole comment, after an opener of code only:
    // `* No changes` and `# No changes` are a list's item and a heading.
    if matches!(words, ["no", "change" | "changes"])
        && matches!(opened, Some("//" | "/*" | "<!--" | "--" | "{/*"))
    {
        return true;
    }
    // `existing` and what a body or a page holds (`{/* existing components
    // */}`, `<!-- existing markup -->`, `// existing error handling`); in
    // brackets of their own, whatever is named (`// (existing lets)`).
    if words.len() <= 3
        && words.first() == Some(&"existing")
        && words.len() > 1
        && (words[1..].iter().all(|w| EXISTING_NOUNS.contains(w))
            || (bracketed && words[1..].iter().all(|w| name(w))))
    {
        return enclosed;
    }
    if enclosed && named_kept(words) {
        return true;
    }
    enclosed
        && words.len() <= MAX_WORDS
        && words
            .iter()
            .all(|w| (alpha(w) && known(w)) || (lines && number(w)))
        && (PHRASES.iter().any(|p| body.contains(p))
            || body.contains("rest of ")
            || body.contains("remainder of ")
            || words.iter().any(|w| ALONE.contains(w))
            || (bracketed && BRACKETED.contains(&body))
            // `existing` alone (`// existing`, `# (existing)`); with what
            // is kept, only a kind of code (below): `// existing settings`
            // is a section comment.
            || words == ["existing"]
            || words
                .windows(2)
                .any(|p| KEPT_BEFORE.contains(&p[0]) && CODE_NOUNS.contains(&p[1])))
}

/// Words that, in a comment of what is kept, make it a sentence
/// about the code beside it (`// Return unchanged`, `# skip if
/// unchanged`, `// Leave the rest unchanged if ...`).
const NOT_NAMED: &[&str] = &[
    "if",
    "when",
    "unless",
    "else",
    "otherwise",
    "return",
    "returns",
    "returned",
    "pass",
    "passes",
    "passed",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "not",
    "leave",
    "leaves",
    "left",
    "still",
    "already",
    "mostly",
    "should",
    "must",
    "will",
    "may",
    "can",
    "copy",
    "copied",
    "send",
    "sent",
    "emit",
    "forward",
    "value",
    "values",
    "status",
    "state",
    "result",
    "input",
    "output",
    "string",
    "text",
    "data",
];

/// A comment naming what it keeps in one to three names, then how
/// (`# lint job unchanged`, `// lets untouched`, `// keep total() as is`,
/// `// helpers stay the same`): what a model writes over the lines it
/// kept. A word of a sentence about code among the names (`// Return
/// unchanged`, `# skip if unchanged`: [`NOT_NAMED`]) makes it a comment.
fn named_kept(words: &[&str]) -> bool {
    let words = words.strip_prefix(&["keep"]).unwrap_or(words);
    let how: &[&[&str]] = &[
        &["unchanged"],
        &["untouched"],
        &["unmodified"],
        &["as", "is"],
        &["as-is"],
        &["as", "before"],
        &["stay", "the", "same"],
        &["stays", "the", "same"],
        &["remain", "unchanged"],
        &["remains", "unchanged"],
        &["stay", "unchanged"],
        &["stays", "unchanged"],
    ];
    how.iter().any(|h| {
        words.strip_suffix(*h).is_some_and(|named| {
            (1..=3).contains(&named.len())
                && !named.iter().any(|w| NOT_NAMED.contains(w))
                && named.iter().all(|w| name(w))
        })
    })
}

/// Whether `line` opens with a comment opener (after its indentation).
pub(crate) fn is_comment(line: &str) -> bool {
    opener(line).is_some()
}

/// The comment opener `line` starts with (after its indentation), if any.
fn opener(line: &str) -> Option<&'static str> {
    let t = line.trim_start();
    OPENERS.iter().copied().find(|o| {
        t.as_bytes()
            .get(..o.len())
            .is_some_and(|b| b.eq_ignore_ascii_case(o.as_bytes()))
    })
}

/// Whether `line`, a marker of dots alone (`#   ...`), ends the comment
/// `above` (the same opener, words in it): an example or a sentence that
/// trails off (`#   client.send(b"hi")`, `#   ...`).
pub(crate) fn trails_comment(above: &str, line: &str) -> bool {
    dots_comment(line).is_some_and(|o| worded_comment(above, o))
}

/// The comment opener of `line` when the comment is dots alone (`// ...`,
/// `# …`).
fn dots_comment(line: &str) -> Option<&'static str> {
    let o = opener(line)?;
    let body = line.trim()[o.len()..].trim();
    (!body.is_empty() && body.split_whitespace().all(is_dots)).then_some(o)
}

/// Whether `l` is a comment opened by `o` that holds words and is no
/// marker.
fn worded_comment(l: &str, o: &str) -> bool {
    opener(l) == Some(o) && !is_marker(l) && l.trim()[o.len()..].chars().any(char::is_alphanumeric)
}

/// Whether `line`, a marker of dots alone (`// ...`, `# …`), is prose: the
/// lines above and below it are comment lines with the same opener that
/// hold words (`// ...` in a quoted specification, between two of its
/// sentences). An ellipsis there leaves out words of the comment, not
/// lines of the file. A marker with words (`// ... existing code ...`) is
/// never prose.
pub(crate) fn in_prose(above: &str, line: &str, below: &str) -> bool {
    dots_comment(line).is_some_and(|o| worded_comment(above, o) && worded_comment(below, o))
}

#[cfg(test)]
mod tests {
    use super::{in_prose, is_marker, Markers, KEYWORDS};

    #[test]
    fn a_line_of_dots_is_a_marker_only_where_no_code_is_one() {
        let js = Markers::of("src/a.ts");
        for l in ["...", "  \u{2026}", "    ...,", "...;", "....."] {
            assert!(js.is(l), "{l:?}");
        }
        // Three dots are code in Python, YAML and Perl; an ellipsis
        // character alone is not.
        for p in ["a.py", "a.yml", "lib.pl"] {
            let m = Markers::of(p);
            assert!(m.is("  \u{2026}") && m.is("\u{2026},"), "{p}");
            for l in ["...", "    ...,", "...;"] {
                assert!(!m.is(l), "{l:?} in {p}");
            }
        }
        for l in ["..", "...rest", "f(...)", "... and more", ". . ."] {
            assert!(!js.is(l) || is_marker(l), "{l:?}");
        }
        // Prose: neither.
        for p in ["a.md", "a.txt", "Makefile", "README", "index.html"] {
            let m = Markers::of(p);
            assert!(!m.bare_dots && !m.bare_ellipsis, "{p}");
            assert!(!m.is("...") && !m.is("\u{2026}"), "{p}");
        }
        for p in [
            "package.json",
            "main.go",
            "lib.rs",
            "A.java",
            "B.cs",
            "s.css",
            "x.MJS",
            "a.c",
            "a.hpp",
            "Todo.vue",
            "App.svelte",
            "Cargo.toml",
            "index.php",
            "a.rb",
            "q.sql",
            "run.sh",
            "Dockerfile",
            "Dockerfile.dev",
        ] {
            assert!(Markers::of(p).bare_dots, "{p}");
        }
        assert!(!Markers::of("a.py").bare_dots);
    }

    #[test]
    fn a_string_of_dots_is_a_marker_in_json() {
        let json = Markers::of("package.json");
        for l in [
            "    \"...\": \"...\",",
            "  \"...\"",
            "  \"...\",",
            "\"\u{2026}\": \"\u{2026}\"",
        ] {
            assert!(json.is(l), "{l:?}");
            assert!(!Markers::of("a.js").is(l), "{l:?} outside JSON");
        }
        for l in [
            "  \"ellipsis\": \"...\",",
            "  \"...\": \"dots\",",
            "  \"a...\",",
        ] {
            assert!(!json.is(l), "{l:?}");
        }
    }

    #[test]
    fn phrases_in_other_languages_emphasis_and_trailing_dots() {
        for l in [
            "// resto sin cambios",
            "// Código existente",
            "// Rest unverändert",
            "// остальной код без изменений",
            "// Существующий код",
            "// 기존 코드 유지",
            "// ...생략...",
            "// 中略",
            "# (中略)",
            "// 其餘程式碼不變",
            "// reszta bez zmian",
            "// mevcut kod",
            "// and so on...",
            "// the rest\u{2026}",
            "// other methods...",
            "// other code",
            "// other code...",
            "// other lines...",
            "  # remaining code",
            "# same as before...",
            "*(unchanged)*",
            "_(rest of section unchanged)_",
            "_... existing content ..._",
            "**[...]**",
            "  // existing loop",
            "  # (existing loop unchanged)",
            "  # existing steps",
            "  # <existing steps>",
            "  // (identical to before)",
            "  // ...loop...",
        ] {
            assert!(is_marker(l), "{l:?}");
        }
        for l in [
            "// El código existente usa UTF-8 en todas partes",
            "// Rest-API",
            "// sin",
            "*emphasis*",
            "_private_",
            "*(see below)*",
            "<Existing steps>",
            "// Keep existing behaviour for old clients...",
            "// More to come...",
        ] {
            assert!(!is_marker(l), "{l:?}");
        }
    }

    #[test]
    fn what_is_kept_named_then_how_and_list_items_of_dots() {
        for l in [
            "  # lint job unchanged",
            "    // lets unchanged",
            "    // keep total() as is",
            "    # keep body as is",
            "  // helpers stay the same",
            "  // init_db untouched",
            "  // (existing lets)",
            "  /* config loading as before */",
            "- ...",
            "  - \u{2026}",
            "- ... (existing items)",
            "+ ... existing steps ...",
            "# [Rest of file remains exactly the same]",
            "[Previous content remains exactly the same]",
            "// Getters and setters omitted",
            "    // getters and setters omitted for brevity",
            "// rest remains same",
            "// ... similar for number, boolean",
            "// ... repeat for all 6 faces",
            "// ... (The rest of the file, renderButton(), and return() remain the same)",
            "// ... (rest of the UI methods remain the same as before - _buildHeader, _buildUploadSection, etc.)",
            "// ... (otras funciones permanecen igual)",
            "// ... (el resto del componente)",
            "// ... restliche Logik",
            "// ... altre funzioni",
            "// ... остальные поля",
            "// ... 其他字段不变",
            "# ... 其余实现",
            "// ... 既存フィールド",
            "// ... 기존 필드",
            "// （中略）",
            "// ... (el resto de tu código de fechas y turnos se queda igual)",
            "// ... остальные функции (loadProducts, toggleCategory и т.д. остаются без изменений)",
        ] {
            assert!(is_marker(l), "{l:?}");
        }
        for l in [
            "  // Return unchanged",
            "  # skip if unchanged",
            "  // status unchanged",
            "  // the value passed through, everything else unchanged here",
            "  // a b c d unchanged",
            "  # existing settings",
            "- Rest unchanged",
            "- existing code",
            "- ...rest",
            "- a ... b",
            "lets unchanged",
            "// similar for number, boolean",
            "// repeat for all tables",
            "// ... and a sentence that runs on past eight words of prose here",
            "// otras funciones",
            "// 其他",
        ] {
            assert!(!is_marker(l), "{l:?}");
        }
    }

    /// Dots glued to one name, the whole of a code comment: what was left
    /// out, named. Spread and rest in code, a name with dots inside, a
    /// sentence glued to dots, and a call are not.
    #[test]
    fn dots_glued_to_one_name_in_a_comment_name_what_was_left_out() {
        for l in [
            "      {/* ...inputs */}",
            "  // ...handlers",
            "    # ...fields",
            "  /* ...props */",
            "<!-- ...sections -->",
        ] {
            assert!(is_marker(l), "{l:?}");
        }
        for l in [
            "  ...inputs,",
            "  {...inputs}",
            "  <Input {...inputs} />",
            "  // ...inputs.map(f)",
            "  // ...args)",
            "  // ...and then we retry",
            "  // ...inputs2",
            "  // ....x",
            "  * ...items",
        ] {
            assert!(!is_marker(l), "{l:?}");
        }
    }

    #[test]
    fn dots_between_two_sentences_of_a_comment_are_prose() {
        let above = "            // Generic Syntax,\" .) section 2.3) MUST be encoded.";
        let below = "            // unreserved = ALPHA, DIGIT, '-', '.', '_', '~'";
        assert!(in_prose(above, "            // ...", below));
        assert!(in_prose("# first", "# …", "# second"));
        // Not prose: words in the marker, code or another comment style
        // beside it, a blank line, another marker.
        assert!(!in_prose(
            above,
            "            // ... existing code ...",
            below
        ));
        assert!(!in_prose("    let x = 1;", "    // ...", below));
        assert!(!in_prose(above, "    // ...", "    # next"));
        assert!(!in_prose(above, "    // ...", ""));
        assert!(!in_prose(above, "    // ...", "    // ... rest unchanged"));
        assert!(!in_prose("    //", "    // ...", below));
        assert!(
            !in_prose("…", "…", "…"),
            "no opener, no prose (and no panic)"
        );
    }

    #[test]
    fn markers_of_every_comment_style() {
        for l in [
            // What the code left out does, between dots standing apart.
            "  // ... validate input ...",
            "    // ... fetch user ...",
            "  # ... lint job ...",
            "  /* ... build the response ... */",
            "// ... existing code ...",
            "  // ...existing code...",
            "# ... rest unchanged",
            "# ...",
            "    # ... (rest of the function unchanged) ...",
            "/* ... */",
            "<!-- ... -->",
            "<!-- ... rest of the page ... -->",
            "-- ... existing queries ...",
            "{/* ... existing JSX ... */}",
            "// existing code here",
            "// rest of the file unchanged",
            "# Rest of the code remains unchanged",
            "    // … other methods …",
            "; ... existing settings ...",
            "' ... existing code ...",
            "... existing code ...",
            "// ... etc",
            // Numbers, a longer aside between dots, brackets around dots,
            // phrases of keeping without a dot, an arrow comment.
            "// ... existing code (lines 10-40) ...",
            "// ... 2 unchanged lines ...",
            "// ... (all other methods of this class remain exactly as they were) ...",
            "// [...]",
            "// (...)",
            "# [...]",
            "// Previous code remains the same",
            "# [Previous code remains the same]",
            // What a body does, said unchanged; a body kept; a count of
            // lines in brackets; a snip in emphasis; no change after an
            // opener of code.
            "  // (parsing unchanged)",
            "  // validation unchanged",
            "    # error handling unchanged",
            "  // existing body",
            "  // [3 lines]",
            "  /* (12 more lines) */",
            "  // *snip*",
            "  // no change",
            "  <!-- no changes -->",
            "      {/* existing components */}",
            "  <!-- existing markup -->",
            "/* existing styles */",
            "\t// existing error handling",
            "\t// error handling unchanged",
            "# setup as before",
            "  // no changes to the rest",
            "  // Remainder of the function is the same",
            "  // {... existing code ...}",
            "  // more code here",
            "  // keep original",
            "      {/* Existing JSX */}",
            "      {/* header and body unchanged */}",
            "  <!-- existing template -->",
            "# existing commands",
            "  // put existing code here",
            "  // original implementation",
            "// (unchanged)",
            "/* unchanged */",
            "// ... as before ...",
            "// ... everything else stays as is ...",
            // Phrasings an agent writes for kept lines (a hunt's list).
            "// ... everything else ...",
            "// ...everything else...",
            "// ... and so forth ...",
            "// ... as-is ...",
            "// (no changes)",
            "// [no changes]",
            "// no changes here",
            "// (same)",
            "// previous methods",
            "// everything else the same",
            "# everything else the same",
            "<!-- everything else the same -->",
            "// Same as original",
            "// (same as original)",
            "// unchanged from original",
            "// No other changes",
            "// Constructor unchanged",
            "# other steps unchanged",
            "# rest of the steps",
            "<!-- rest of the document unchanged -->",
            "// ~~~ existing code ~~~",
            "// === existing code ===",
            "// other functions",
            "# other functions",
            "// remaining functions",
            "// prior methods",
            "// original methods",
            "// previous tests",
            "// remaining fields",
            "// other properties",
            "// other members",
            "// other logic",
            "<!-- other items -->",
            "# other jobs",
            "/* other rules */",
            "# other functions remain",
            "# rest is identical",
            "# Leave the rest alone",
            "// <-- existing code -->",
            "[rest of the file unchanged]",
            // What a body does, between dots.
            "  // ... validation logic ...",
            "  // ... error handling ...",
            "  // ... setup ...",
            "    # ... parsing and validation ...",
            // A Python placeholder statement carrying the marker comment.
            "    ...  # existing code",
            "    pass  # existing code",
            "    ...  # ... existing code ...",
            "    ... # rest of the function unchanged",
            // Phrasings agents write, each once missed.
            "// rest of implementation",
            "// remaining methods unchanged",
            "// everything else unchanged",
            "// (other methods unchanged)",
            "// Your existing code here",
            "// ... (truncated) ...",
            "// ... no changes ...",
            "// keep as is",
            "<!-- Rest of the HTML remains the same -->",
            "# Rest of the script unchanged",
            "-- rest of the query stays the same",
            "(* ... existing code ... *)",
            "// [previous code]",
            "# [previous code]",
            "// previous code",
            "// (original code)",
            "// existing logic",
            "// etc.",
            "// etc...",
            "// keep everything else",
            "// leave the rest as is",
            "// the rest",
            "// [truncated]",
            "// Lines 4-7 unchanged",
            "// [lines 4-7 omitted]",
            "// ... and so on ...",
            "// same as above",
            "// existing code continues",
            "// insert existing code here",
            "// . . .",
            "// [..]",
            "// \u{22EE}",
            "# \u{22EF}",
            "// \u{2025}",
            // Comment syntaxes of template and other languages.
            "{# ... existing code ... #}",
            "{{-- ... existing code ... --}}",
            "<%# ... existing code ... %>",
            "@* ... existing code ... *@",
            "{{!-- ... existing code ... --}}",
            "{{! ... existing code ... }}",
            "<%-- ... existing code ... --%>",
            "{{/* ... existing code ... */}}",
            "{- ... existing code ... -}",
            "<# ... existing code ... #>",
            "--[[ ... existing code ... ]]",
            "%% ... existing code ...",
            "%{ ... existing code ... %}",
            "! ... existing code ...",
            "#[ ... existing code ... ]#",
            "#= ... existing code ... =#",
            "/+ ... existing code ... +/",
            "[//]: # (... existing code ...)",
            ".. ... existing code ...",
            ":: ... existing code ...",
            "<!--- ... existing code ... --->",
            "//! ...",
            "/*! ... */",
            "*> ...",
            "# ... existing code ... #",
            "/* ... existing code ... */;",
            // More phrasings.
            "# existing",
            "# (existing)",
            "# [existing]",
            "# existing fields",
            "# ... fields ...",
            "# ... methods ...",
            "# as before",
            "# rest as before",
            "# keep rest",
            "# remaining tests",
            "# other methods here",
            "# other imports",
            "# previous implementation",
            "# prior code",
            "# old code",
            "# ... continues ...",
            "# continued",
            "# (continued)",
            "# code continues",
            // Names between dots, line ranges with an en dash.
            "        # ... rest of __init__ unchanged ...",
            "    # ... existing setup_session code ...",
            "# ... rest of settings.py ...",
            "// ... rest of main.rs ...",
            "// ... rest of handle_submit ...",
            "// ... (lines 120–180 unchanged) ...",
            // `rest of` and what is kept, the whole comment.
            "    // rest of the loop",
            "    // rest of the handler",
            "// rest of the loop body",
            "// rest of main",
            "{/* rest of JSX */}",
            "// (rest of the switch cases)",
            "// the rest of the loop",
            // More phrasings.
            "// Your existing code...",
            "// your other code here",
            "// No changes below this line",
            "// ...continue...",
            "// ... 其他代码 ...",
            "// ...省略...",
            "# 其余代码保持不变",
            "// 既存のコード",
        ] {
            assert!(is_marker(l), "{l:?} is a marker");
            let lower = l.to_lowercase();
            assert!(
                KEYWORDS.iter().any(|k| lower.contains(k)),
                "{l:?} holds a keyword the prefilter looks for"
            );
        }
    }

    #[test]
    fn code_and_notes_are_not_markers() {
        for l in [
            // A sentence running on from the comment line before.
            "        // ...not where a near miss of it is elsewhere...",
            "        // ...and with the block nowhere near, only for a long replacement.",
            "...",
            "    ...",
            "    ...  # type: ignore",
            "    pass  # nothing to do",
            "    pass",
            "    passed = 1  # existing code",
            "...rest  # existing",
            "foo(...args);",
            "return [...a, ...b];",
            "// TODO: ...",
            "// line beyond it, reached through kept lines ...",
            "// ... TODO implement",
            "# Returns the value unchanged when empty, otherwise the parsed form",
            "console.log('...');",
            "// loading...",
            "x = 1  # ...",
            "// see the existing code in lib.rs for how the cache is cleared on shutdown",
            // A list's item and a heading; a count not in brackets; what a
            // body does without a word of keeping.
            "* No changes",
            "  * etc",
            "* rest of the API is unchanged",
            "# No changes",
            "// 3 lines",
            "  // validation",
            "  // error handling",
            "  // parsing of the header",
            "  // *important*",
            "  // existing settings",
            "  // header",
            "  // TODO: keep existing code",
            "  // add the rest to the queue",
            "{ ...rest }",
            "",
            "}",
            // Spread and rest in code: the dots are glued to a name.
            "  ...rest",
            "  ...rest: unknown[]",
            "    ...existing,",
            "  ...others,",
            "...previous",
            // Prose: a phrase of keeping in a sentence that is no comment.
            "The public API remains unchanged.",
            "See the rest of the file for details.",
            "- Existing code keeps working unchanged",
            // Comments that say more than "kept": words beyond a marker's.
            "// Keep existing behaviour for old clients",
            "// existing implementation was too slow",
            "// Same as before, but async",
            "# Same as before, minus the cache",
            "// More to come...",
            "// Other fields are ignored...",
            "// The rest of the file relies on this",
            "// Keep as is for old clients",
            "// rest of the items are ignored",
            "// unchanged since the last release",
            "(*p).x = 1;",
            // A changelog's bullet.
            "* No changes",
            // A marker inside a string literal (a test's data) is code.
            "        \"    # ... existing code ...\",",
            "        \"    /* existing code here */\",",
            // Words that also open a sentence, or name a thing.
            "// REST",
            "// the rest of this function handles errors",
            "// previous code path kept for old clients",
            "// line 4 is the header",
            "x = 4 - 7 // lines",
            "..",
            "// see above",
            "// same",
            "// no changes needed",
            "// other methods call this one first",
            "// keep this in sync with the schema",
            // Section comments of real code, beside code a change deletes:
            // never markers (they brought deleted code back).
            "// Other cases",
            "// everything else",
            "// keep",
            "// remaining options",
            "        // other settings",
            "// Other routes",
            "// Other helpers",
            "// Other exports",
            "// existing routes",
            "// Existing settings",
            "// x = y == z",
            // `rest of` in a sentence; names in a comment without dots.
            "// rest of the items are ignored here",
            "// the rest of the loop handles retries",
            "// ... then call setup_session with the config",
            "// 这里处理其他代码中抛出的异常并记录日志",
            "let s = \"其他代码\";",
            // Comments of real code that hold such a word.
            "// 检查不变量",
            "// 不变量检查已移除",
            "// 省略调试输出",
            "// ログ出力は省略",
            "// 変更なしならスキップ",
            "// 省略参数时使用默认值",
            "// 如果状态不变，直接返回",
            "    \"其他代码\",",
        ] {
            assert!(!is_marker(l), "{l:?} is not a marker");
        }
    }
}
