//! What the syntax check says about a file an edit wrote (or would
//! write): the parse errors the edit introduced, or why the file was not
//! checked. Present only when there is something to say.

use schemars::JsonSchema;
use serde::Serialize;

use crate::model::names;

names! {
    /// A language the syntax check parses.
    pub enum SyntaxLanguage {
        TypeScript = "typescript",
        Tsx = "tsx",
        JavaScript = "javascript",
        Python = "python",
        Rust = "rust",
        Go = "go",
        Java = "java",
        C = "c",
        Cpp = "cpp",
        CSharp = "csharp",
        Json = "json",
        Yaml = "yaml",
        Toml = "toml",
        Html = "html",
        Css = "css",
        Bash = "bash",
        Ruby = "ruby",
        Php = "php",
    }
}

names! {
    /// Why a file in a checked language was not checked: over 4 MiB, its
    /// parse past the time budget, or (YAML) nested too deep for its
    /// grammar to read safely.
    pub enum Unchecked {
        TooLarge = "too_large",
        Timeout = "timeout",
        TooDeep = "too_deep",
    }
}

names! {
    /// What the parser met: a token that should be there and is not, or
    /// text it could not place.
    pub enum SyntaxProblem {
        Missing = "missing",
        Unexpected = "unexpected",
    }
}

/// The syntax check of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SyntaxReport {
    pub language: SyntaxLanguage,
    /// The parse errors the edit introduced (the first 5): errors the file
    /// already had are not listed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<SyntaxError>,
    /// How many more introduced errors there are beyond those listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more_errors: Option<usize>,
    /// Set when the file was not checked, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unchecked: Option<Unchecked>,
}

/// One parse error of the new text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SyntaxError {
    /// 1-based line and column (in characters) in the new text.
    pub line: usize,
    pub column: usize,
    pub problem: SyntaxProblem,
    /// The missing token, or the start of the text that could not be
    /// placed.
    pub token: String,
    /// What the parser could accept there, when it is a short list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Vec<String>>,
    /// The new text's line, as written (at most 200 characters).
    pub text: String,
}
