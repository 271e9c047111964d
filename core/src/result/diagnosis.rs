//! What diagnosis adds to a failed edit: the closest current text, whether
//! the edit already stands, the smallest unique extension of an ambiguous
//! block. `diagnose` fills these; every failure type embeds them.

use schemars::JsonSchema;
use serde::Serialize;

use super::marks::True;
use crate::model::names;

names! {
    /// A kind of difference between a search block and the closest region
    /// (in the order results list them); some are what a tolerance of
    /// `match` forgives.
    pub enum Difference {
        /// CRLF vs LF.
        LineEndings = "line_endings",
        /// Tabs vs spaces, or a different depth.
        Indentation = "indentation",
        /// Spaces or tabs at line ends.
        TrailingWhitespace = "trailing_whitespace",
        /// Unicode spaces or zero-width characters (a BOM inside the text
        /// included).
        InvisibleCharacters = "invisible_characters",
        /// Curly quotes, typographic dashes, ellipsis.
        UnicodePunctuation = "unicode_punctuation",
        /// Doubled, added or missing backslashes; literal `\n` for a newline.
        Escaping = "escaping",
        /// Letter case.
        Case = "case",
        /// Line-number prefixes pasted from a read tool's output (`   12→`,
        /// `12\t`, `12: `).
        LineNumbers = "line_numbers",
        /// Lines left out and marked as such (`...`, `// ... existing code
        /// ...`).
        Elision = "elision",
        /// Anything else: the text itself differs.
        Content = "content",
    }
}

pub use crate::model::Tolerance;

/// The region of the file most like a search block that was not found.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ClosestMatch {
    /// 1-based first line of the region.
    pub line_number: usize,
    /// 1-based last line of the region.
    pub end_line: usize,
    /// Character similarity of the search block to the region, 0..1.
    pub similarity: f64,
    /// The exact current text of the region: use it as the search block.
    pub text: String,
    /// Each kind of difference found, in a fixed order.
    pub differences: Vec<Difference>,
    /// One sentence per kind (except content) about where it shows.
    pub details: Vec<String>,
    /// 1-based start lines of other regions exactly as close (the block does
    /// not tell them apart).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub equally_close: Vec<usize>,
}

/// The smallest extension of an ambiguous block that occurs only once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ContextHint {
    /// 1-based line where this occurrence of the block starts.
    pub match_line: usize,
    /// 1-based first line of the extended block.
    pub line_number: usize,
    /// 1-based last line of the extended block.
    pub end_line: usize,
    pub lines_before: usize,
    pub lines_after: usize,
    /// The extended block, unique in the file.
    pub search_block: String,
}

/// A 1-based range of lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LineRange {
    pub line_number: usize,
    pub end_line: usize,
}

/// What diagnosis adds to a failed edit (all absent when it found nothing).
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct Diagnosed {
    /// SEARCH_BLOCK_NOT_FOUND: the nearest region, when one is plausible.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closest_match: Option<ClosestMatch>,
    /// SEARCH_BLOCK_NOT_FOUND: the new text already stands exactly once
    /// where the old text would be: do not retry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub already_applied: Option<True>,
    /// Where the new text already stands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied_at: Option<LineRange>,
    /// SEARCH_BLOCK_AMBIGUOUS: per occurrence (first 10), the smallest
    /// unique extension.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(default)]
    pub unique_context_hint: Vec<ContextHint>,
    /// The file was too large to diagnose within the budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnosis_incomplete: Option<True>,
}
