//! Text folds: the one table of the non-ASCII characters that stand in for
//! ASCII in text that went through a model, a word processor or a chat
//! window, and the vocabulary for naming how two texts differ.
//!
//! Models trained on typeset prose write curly quotes and dashes where code
//! has straight ones; editors and chat clients "smarten" quotes, turn `--`
//! into an en or em dash and `...` into an ellipsis; CJK input methods type
//! fullwidth forms; French and German locales swap in guillemets; and
//! copy-paste from web pages and documents brings no-break and other
//! fixed-width spaces, zero-width characters and a stray BOM. Every part of
//! the crate that forgives or names such a difference uses the tables here,
//! so a character means the same thing everywhere:
//!
//! * [`PUNCTUATION`] ([`punct_ascii`]) is what `unicode_punctuation` means:
//!   the difference kind diagnosis reports ([`Difference::UnicodePunctuation`](crate::result::diagnosis::Difference)),
//!   the tolerance of `match: ["unicode_punctuation"]`, and the fold of the
//!   `unicode_punctuation` level at which patch and diff hunks are located.
//! * [`UNICODE_SPACES`] ([`unicode_space`]) are spaces of another width or
//!   that do not break. Diagnosis names them `invisible_characters`; the
//!   `unicode_punctuation` level of hunk locating, which also ignores
//!   whitespace around lines, folds them to a plain space. Tolerant matching
//!   does not fold them (its whitespace tolerances concern spaces and tabs).
//! * Zero-width characters ([`zero_width`]) stand for nothing; diagnosis names them
//!   `invisible_characters`. No matching mode forgives them.
//!
//! Pure: nothing here depends on the rest of the crate.

use std::borrow::Cow;

/// Declares a table of characters (with what each folds to, if anything)
/// and the function that looks one up, from a single list, so the two can
/// never disagree.
macro_rules! table {
    (
        $(#[$tm:meta])* $tv:vis const $table:ident: [(char, &str)];
        $(#[$fm:meta])* $fv:vis fn $f:ident;
        { $( $(#[$gm:meta])* $to:literal <= [$($c:literal),+ $(,)?] ),+ $(,)? }
    ) => {
        $(#[$tm])*
        $tv const $table: &[(char, &str)] = &[$($(($c, $to)),+),+];
        $(#[$fm])*
        #[inline]
        $fv fn $f(c: char) -> Option<&'static str> {
            match c {
                $( $(#[$gm])* $($c)|+ => Some($to), )+
                _ => None,
            }
        }
    };
    (
        $(#[$tm:meta])* $tv:vis const $table:ident: [char];
        $(#[$fm:meta])* $fv:vis fn $f:ident;
        [$($c:literal),+ $(,)?]
    ) => {
        $(#[$tm])*
        $tv const $table: &[char] = &[$($c),+];
        $(#[$fm])*
        #[inline]
        $fv fn $f(c: char) -> bool {
            matches!(c, $($c)|+)
        }
    };
}

table! {
    /// Typographic punctuation and the ASCII it stands for: what
    /// `unicode_punctuation` folds in every entry point (diagnosis, tolerant
    /// matching, hunk locating).
    pub const PUNCTUATION: [(char, &str)];
    /// The ASCII spelling of a typographic punctuation character.
    pub fn punct_ascii;
    {
        // Smart single quotes and apostrophes (autocorrect, models writing
        // prose: `it’s`), the low and reversed forms of other locales,
        // primes typed for feet/minutes, and the fullwidth apostrophe of CJK
        // input methods.
        "'" <= [
            '\u{2018}', // ‘ left single quotation mark
            '\u{2019}', // ’ right single quotation mark / apostrophe
            '\u{201A}', // ‚ single low-9 quotation mark
            '\u{201B}', // ‛ single high-reversed-9 quotation mark
            '\u{2032}', // ′ prime
            '\u{2035}', // ‵ reversed prime
            '\u{FF07}', // ＇ fullwidth apostrophe
        ],
        // Smart double quotes, low-9 (German), guillemets (French, German,
        // Russian locales), double primes and the fullwidth quote.
        "\"" <= [
            '\u{201C}', // “ left double quotation mark
            '\u{201D}', // ” right double quotation mark
            '\u{201E}', // „ double low-9 quotation mark
            '\u{201F}', // ‟ double high-reversed-9 quotation mark
            '\u{2033}', // ″ double prime
            '\u{2036}', // ‶ reversed double prime
            '\u{00AB}', // « left-pointing double angle quotation mark
            '\u{00BB}', // » right-pointing double angle quotation mark
            '\u{FF02}', // ＂ fullwidth quotation mark
        ],
        // Hyphens and dashes: `--` turned into an en or em dash by editors,
        // the minus sign of typeset formulas, the non-breaking hyphen of word
        // processors, small and fullwidth forms of CJK text.
        "-" <= [
            '\u{2010}', // ‐ hyphen
            '\u{2011}', // ‑ non-breaking hyphen
            '\u{2012}', // ‒ figure dash
            '\u{2013}', // – en dash
            '\u{2014}', // — em dash
            '\u{2015}', // ― horizontal bar
            '\u{2212}', // − minus sign
            '\u{FE58}', // ﹘ small em dash
            '\u{FE63}', // ﹣ small hyphen-minus
            '\u{FF0D}', // － fullwidth hyphen-minus
        ],
        // `...` collapsed into one character by autocorrect. The only fold
        // that changes the length in characters: code mapping folded offsets
        // back to the original must treat the three dots as one character.
        "..." <= [
            '\u{2026}', // … horizontal ellipsis
        ],
    }
}

table! {
    /// Spaces that are not U+0020: no-break spaces (word processors, HTML
    /// `&nbsp;`, French typography before `:` `;` `!` `?`), the fixed-width
    /// spaces of typesetting (en, em, thin, hair…), and the ideographic space
    /// of CJK input methods. They look like a plain space and usually stand
    /// for one.
    pub const UNICODE_SPACES: [char];
    /// Whether `c` is one of [`UNICODE_SPACES`].
    pub(crate) fn unicode_space;
    [
        '\u{00A0}', // no-break space
        '\u{1680}', // ogham space mark
        '\u{2000}', // en quad
        '\u{2001}', // em quad
        '\u{2002}', // en space
        '\u{2003}', // em space
        '\u{2004}', // three-per-em space
        '\u{2005}', // four-per-em space
        '\u{2006}', // six-per-em space
        '\u{2007}', // figure space
        '\u{2008}', // punctuation space
        '\u{2009}', // thin space
        '\u{200A}', // hair space
        '\u{202F}', // narrow no-break space
        '\u{205F}', // medium mathematical space
        '\u{3000}', // ideographic space
    ]
}

table! {
    /// Characters that show as nothing: zero-width spaces and joiners
    /// (pasted from web pages and chat clients, or inserted to allow line
    /// breaks), a byte order mark inside the text (files concatenated or
    /// copied from Windows tools), bidirectional marks and controls, the soft
    /// hyphen of word processors, and the Mongolian vowel separator (a space
    /// in older Unicode versions).
    #[cfg(test)]
    pub(crate) const ZERO_WIDTH: [char];
    /// Whether `c` is one of the zero-width characters.
    pub(crate) fn zero_width;
    [
        '\u{200B}', // zero-width space
        '\u{200C}', // zero-width non-joiner
        '\u{200D}', // zero-width joiner
        '\u{200E}', // left-to-right mark
        '\u{200F}', // right-to-left mark
        '\u{2060}', // word joiner
        '\u{FEFF}', // byte order mark / zero-width no-break space
        '\u{00AD}', // soft hyphen
        '\u{180E}', // mongolian vowel separator
        '\u{202A}', // left-to-right embedding
        '\u{202B}', // right-to-left embedding
        '\u{202C}', // pop directional formatting
        '\u{202D}', // left-to-right override
        '\u{202E}', // right-to-left override
        '\u{2066}', // left-to-right isolate
        '\u{2067}', // right-to-left isolate
        '\u{2068}', // first strong isolate
        '\u{2069}', // pop directional isolate
    ]
}

/// What an invisible character stands for: `Some(true)` a space (one of
/// [`UNICODE_SPACES`]), `Some(false)` nothing (one of [`zero_width`]'s),
/// `None` for any other character.
#[inline]
pub(crate) fn invisible(c: char) -> Option<bool> {
    if unicode_space(c) {
        Some(true)
    } else if zero_width(c) {
        Some(false)
    } else {
        None
    }
}

/// A name for an invisible character, for messages.
pub(crate) fn char_name(c: char) -> &'static str {
    match c {
        '\u{00A0}' => "no-break space",
        '\u{202F}' => "narrow no-break space",
        '\u{2009}' => "thin space",
        '\u{3000}' => "ideographic space",
        '\u{200B}' => "zero-width space",
        '\u{200C}' => "zero-width non-joiner",
        '\u{200D}' => "zero-width joiner",
        '\u{2060}' => "word joiner",
        '\u{FEFF}' => "byte order mark",
        '\u{00AD}' => "soft hyphen",
        '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
            "bidirectional control"
        }
        _ => "invisible space",
    }
}

/// `s` with [`PUNCTUATION`] folded to ASCII and, with `spaces`, each of
/// [`UNICODE_SPACES`] folded to a plain space. Borrowed when nothing folds.
pub(crate) fn fold(s: &str, spaces: bool) -> Cow<'_, str> {
    let folds = |c: char| punct_ascii(c).is_some() || (spaces && unicode_space(c));
    let Some(first) = s.find(|c: char| !c.is_ascii() && folds(c)) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len());
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        if let Some(a) = punct_ascii(c) {
            out.push_str(a);
        } else if spaces && unicode_space(c) {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_and_lookups_agree() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let p = PUNCTUATION.iter().find(|(x, _)| *x == c).map(|(_, a)| *a);
            assert_eq!(punct_ascii(c), p, "U+{:04X}", c as u32);
            assert_eq!(unicode_space(c), UNICODE_SPACES.contains(&c));
            assert_eq!(zero_width(c), ZERO_WIDTH.contains(&c));
        }
    }

    #[test]
    fn tables_are_disjoint_and_fold_to_ascii() {
        for (c, a) in PUNCTUATION {
            assert!(!c.is_ascii() && a.is_ascii() && !a.is_empty());
            assert_eq!(invisible(*c), None);
        }
        for c in UNICODE_SPACES {
            assert!(!zero_width(*c) && c.is_whitespace(), "U+{:04X}", *c as u32);
        }
        let mut all: Vec<char> = PUNCTUATION.iter().map(|p| p.0).collect();
        all.extend(UNICODE_SPACES);
        all.extend(ZERO_WIDTH);
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a character is listed twice");
    }

    #[test]
    fn fold_strings() {
        assert!(matches!(fold("plain 'text' - ok", true), Cow::Borrowed(_)));
        assert!(matches!(fold("a\u{a0}b", false), Cow::Borrowed(_)));
        assert_eq!(fold("«say» ‘hi’ — now…", false), "\"say\" 'hi' - now...");
        assert_eq!(fold("a\u{a0}b\u{3000}c – d", true), "a b c - d");
        assert_eq!(fold("a\u{a0}b – d", false), "a\u{a0}b - d");
        assert_eq!(fold("zero\u{200b}width", true), "zero\u{200b}width");
    }
}
