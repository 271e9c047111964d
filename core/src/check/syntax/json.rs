//! Strict JSON (RFC 8259) for `.json` files.
//!
//! The JSON grammar is a lenient reader made for editors: it takes
//! comments, a second value after the first and raw control characters in
//! strings, none of which `JSON.parse`, npm or any other JSON reader
//! accepts, and (0.24) it reads the exponent `1e+21`, which
//! `JSON.stringify` writes, as an error. So a `.json` file (JSONC names are
//! not checked at all: see `grammar`) is judged here first:
//!
//! - a new text that is strict JSON has nothing to report (also where the
//!   grammar would have seen an error);
//! - a new text that is not, when the old one was (or the file is new):
//!   its first error is the edit's (a strict reader stops at the first);
//! - when the old text was no strict JSON either (a `.json` file holding
//!   comments, or already broken), the grammar judges the edit as for any
//!   other language, so such a file's edits are checked as before.
//!
//! A text of white space alone (an empty file) is taken as valid: it is
//! what a file is between its creation and its first content. The reader
//! is a loop over the bytes with a stack of the open brackets (no
//! recursion: any depth), linear in the text.

use super::parse::Pieces;
use crate::result::syntax::SyntaxProblem;

/// The first place a text stops being strict JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonError {
    /// Byte offset of the unexpected text, or the text's length when it
    /// ended early.
    pub(crate) at: usize,
    pub(crate) problem: SyntaxProblem,
    /// The unexpected token, or what was missing at the end.
    pub(crate) token: String,
    /// What may stand there (empty: more than a short list).
    pub(crate) expected: &'static [&'static str],
}

/// What the reader waits for next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    /// A value (the document's, a member's, an element after `,`).
    Value,
    /// After `[`: a value or `]`.
    ValueOrClose,
    /// After `{`: a key or `}`.
    KeyOrClose,
    /// After `,` in an object: a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// After a value in an object or array: `,` or its closing bracket.
    CommaOrClose,
    /// After the document's value: nothing more.
    End,
}

const VALUE: &[&str] = &[];
const IN_ARRAY: &[&str] = &[",", "]"];
const IN_OBJECT: &[&str] = &[",", "}"];

/// The bytes of a text given in pieces, read one at a time.
struct Cursor<'a> {
    pieces: &'a [&'a [u8]],
    piece: usize,
    i: usize,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(pieces: &'a [&'a [u8]]) -> Self {
        let mut c = Cursor {
            pieces,
            piece: 0,
            i: 0,
            at: 0,
        };
        c.settle();
        c
    }

    /// Moves past empty pieces and the end of the current one.
    fn settle(&mut self) {
        while self.piece < self.pieces.len() && self.i >= self.pieces[self.piece].len() {
            self.piece += 1;
            self.i = 0;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.pieces.get(self.piece).map(|p| p[self.i])
    }

    fn bump(&mut self) {
        self.i += 1;
        self.at += 1;
        self.settle();
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.bump();
        }
    }

    /// Takes `word` if the text goes on with it.
    fn eat(&mut self, word: &[u8]) -> bool {
        for &w in word {
            if self.peek() != Some(w) {
                return false;
            }
            self.bump();
        }
        true
    }

    /// Takes one or more digits.
    fn digits(&mut self) -> bool {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.bump();
        }
        self.at > start
    }
}

/// The first error of `text` (its pieces in order) as strict JSON, or
/// `None` when it is strict JSON (or white space alone).
pub(crate) fn first_error(text: &Pieces<'_>) -> Option<JsonError> {
    read(text).err()
}

fn read(text: &Pieces<'_>) -> Result<(), JsonError> {
    let mut c = Cursor::new(text.pieces());
    // A byte order mark is not JSON but the file's encoding, kept apart
    // from its text elsewhere: read past it (a lead byte of one that does
    // not go on as one is an error where it stands).
    if c.peek() == Some(0xEF) && !c.eat(b"\xEF\xBB\xBF") {
        return Err(unexpected(text, 0, VALUE));
    }
    c.skip_space();
    if c.peek().is_none() {
        return Ok(());
    }
    let mut open: Vec<u8> = Vec::new();
    let mut want = Want::Value;
    loop {
        c.skip_space();
        let Some(b) = c.peek() else {
            return match want {
                Want::End => Ok(()),
                _ => Err(missing(c.at, want, open.last().copied())),
            };
        };
        let at = c.at;
        want = match (want, b) {
            (Want::ValueOrClose, b']') | (Want::CommaOrClose, b']' | b'}')
                if closer_of(open.last().copied()) == b =>
            {
                c.bump();
                open.pop();
                after_value(&open)
            }
            (Want::KeyOrClose, b'}') => {
                c.bump();
                open.pop();
                after_value(&open)
            }
            (Want::Value | Want::ValueOrClose, _) => match b {
                b'{' | b'[' => {
                    c.bump();
                    open.push(b);
                    if b == b'{' {
                        Want::KeyOrClose
                    } else {
                        Want::ValueOrClose
                    }
                }
                b'"' => {
                    string(&mut c, text)?;
                    after_value(&open)
                }
                b'-' | b'0'..=b'9' => {
                    number(&mut c, text)?;
                    after_value(&open)
                }
                b't' | b'f' | b'n' => {
                    let word: &[u8] = match b {
                        b't' => b"true",
                        b'f' => b"false",
                        _ => b"null",
                    };
                    if !c.eat(word) {
                        return Err(unexpected(text, at, VALUE));
                    }
                    after_value(&open)
                }
                _ => return Err(unexpected(text, at, VALUE)),
            },
            (Want::KeyOrClose | Want::Key, b'"') => {
                string(&mut c, text)?;
                Want::Colon
            }
            (Want::Colon, b':') => {
                c.bump();
                Want::Value
            }
            (Want::CommaOrClose, b',') => {
                c.bump();
                if open.last() == Some(&b'{') {
                    Want::Key
                } else {
                    Want::Value
                }
            }
            (want, _) => return Err(unexpected(text, at, expected(want, open.last().copied()))),
        };
    }
}

/// What follows a complete value.
fn after_value(open: &[u8]) -> Want {
    if open.is_empty() {
        Want::End
    } else {
        Want::CommaOrClose
    }
}

fn closer_of(open: Option<u8>) -> u8 {
    if open == Some(b'{') {
        b'}'
    } else {
        b']'
    }
}

/// What may stand where `want` waits, inside the bracket `open`.
fn expected(want: Want, open: Option<u8>) -> &'static [&'static str] {
    match want {
        Want::Value | Want::ValueOrClose => VALUE,
        Want::KeyOrClose => &["string", "}"],
        Want::Key => &["string"],
        Want::Colon => &[":"],
        Want::CommaOrClose if open == Some(b'{') => IN_OBJECT,
        Want::CommaOrClose => IN_ARRAY,
        Want::End => &[],
    }
}

/// The text ended at `at` while `want` waited.
fn missing(at: usize, want: Want, open: Option<u8>) -> JsonError {
    let token = match want {
        Want::Value => "value".to_string(),
        Want::Key => "string".to_string(),
        Want::Colon => ":".to_string(),
        _ => char::from(closer_of(open)).to_string(),
    };
    JsonError {
        at,
        problem: SyntaxProblem::Missing,
        token,
        expected: expected(want, open),
    }
}

/// Unexpected text at `at`: a word or number whole (up to 40 bytes), else
/// one character.
fn unexpected(text: &Pieces<'_>, at: usize, expected: &'static [&'static str]) -> JsonError {
    // The next bytes, across pieces.
    let mut rest = Vec::with_capacity(40);
    while rest.len() < 40 {
        let more = text.from(at + rest.len());
        if more.is_empty() {
            break;
        }
        rest.extend_from_slice(&more[..more.len().min(40 - rest.len())]);
    }
    let word = rest
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'+' | b'-'))
        .count();
    let len = if word > 0 {
        word
    } else {
        // One character, whole when it is UTF-8.
        let n = match rest.first().copied().unwrap_or(0) {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        n.min(rest.len())
    };
    JsonError {
        at,
        problem: SyntaxProblem::Unexpected,
        token: String::from_utf8_lossy(&rest[..len]).into_owned(),
        expected,
    }
}

/// Reads a string from its opening quote.
fn string(c: &mut Cursor<'_>, text: &Pieces<'_>) -> Result<(), JsonError> {
    c.bump();
    loop {
        let at = c.at;
        match c.peek() {
            None => {
                return Err(JsonError {
                    at,
                    problem: SyntaxProblem::Missing,
                    token: "\"".to_string(),
                    expected: &["\""],
                })
            }
            Some(b'"') => {
                c.bump();
                return Ok(());
            }
            Some(b'\\') => {
                c.bump();
                match c.peek() {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => c.bump(),
                    Some(b'u') => {
                        c.bump();
                        for _ in 0..4 {
                            if !c.peek().is_some_and(|b| b.is_ascii_hexdigit()) {
                                return Err(unexpected(text, at, &[]));
                            }
                            c.bump();
                        }
                    }
                    _ => return Err(unexpected(text, at, &[])),
                }
            }
            // A control character must be written as an escape.
            Some(0..=0x1F) => return Err(unexpected(text, at, &[])),
            Some(_) => c.bump(),
        }
    }
}

/// Reads a number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn number(c: &mut Cursor<'_>, text: &Pieces<'_>) -> Result<(), JsonError> {
    let start = c.at;
    c.eat(b"-");
    if !c.eat(b"0") && !c.digits() {
        return Err(unexpected(text, start, VALUE));
    }
    if c.eat(b".") && !c.digits() {
        return Err(unexpected(text, start, VALUE));
    }
    if matches!(c.peek(), Some(b'e' | b'E')) {
        c.bump();
        if matches!(c.peek(), Some(b'+' | b'-')) {
            c.bump();
        }
        if !c.digits() {
            return Err(unexpected(text, start, VALUE));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn err(s: &str) -> Option<JsonError> {
        first_error(&Pieces::new(&[s.as_bytes()]))
    }

    #[test]
    fn valid_json_of_every_kind() {
        for s in [
            "{}",
            "[]",
            " \n",
            "",
            "{\"a\": 1e+21, \"b\": 0.5E+1, \"c\": -0, \"d\": 1E-7, \"e\": [true, false, null]}\n",
            "\"\\u00e9\\n\\\"\"",
            "[[[[[]]]]]",
            "\u{feff}{\"é\": \"ü\"}",
            "123",
        ] {
            assert_eq!(err(s), None, "{s:?}");
        }
    }

    #[test]
    fn what_no_json_reader_takes_is_an_error_where_it_starts() {
        let cases: &[(&str, usize, SyntaxProblem, &str)] = &[
            (
                "{\n  // pinned\n  \"a\": 1\n}",
                4,
                SyntaxProblem::Unexpected,
                "/",
            ),
            ("{\"a\": 1}\n{\"b\": 2}", 9, SyntaxProblem::Unexpected, "{"),
            ("{\"a\": \"x\ty\"}", 8, SyntaxProblem::Unexpected, "\t"),
            ("{\"a\": 1,}", 8, SyntaxProblem::Unexpected, "}"),
            ("[1, 2", 5, SyntaxProblem::Missing, "]"),
            ("{\"a\": 01}", 7, SyntaxProblem::Unexpected, "1"),
            ("{\"a\": tru}", 6, SyntaxProblem::Unexpected, "tru"),
            ("{\"a\" 1}", 5, SyntaxProblem::Unexpected, "1"),
            ("{\"a\": \"b", 8, SyntaxProblem::Missing, "\""),
            ("{\"a\": 1.}", 6, SyntaxProblem::Unexpected, "1."),
            ("{\"a\": NaN}", 6, SyntaxProblem::Unexpected, "NaN"),
            ("['a']", 1, SyntaxProblem::Unexpected, "'"),
            ("{\"a\": \"\\x\"}", 7, SyntaxProblem::Unexpected, "\\"),
        ];
        for &(s, at, problem, token) in cases {
            let e = err(s).unwrap_or_else(|| panic!("{s:?}: no error"));
            assert_eq!(
                (e.at, e.problem, e.token.as_str()),
                (at, problem, token),
                "{s:?}"
            );
        }
        assert_eq!(err("{\"a\": 1 \"b\": 2}").unwrap().expected, IN_OBJECT);
    }

    #[test]
    fn any_depth_without_recursion() {
        let deep = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
        assert_eq!(err(&deep), None);
        let open = "[{\"a\":".repeat(200_000);
        assert_eq!(err(&open).map(|e| e.problem), Some(SyntaxProblem::Missing));
    }

    /// Small JSON-like texts built of its tokens and a few strangers.
    fn token() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            Just("{"),
            Just("}"),
            Just("["),
            Just("]"),
            Just(","),
            Just(":"),
            Just("\"k\""),
            Just("\"\\u00e9\\\\\""),
            Just("1"),
            Just("-0.5e+3"),
            Just("01"),
            Just("true"),
            Just("nul"),
            Just(" "),
            Just("\n"),
            Just("/"),
            Just("\"\t\""),
        ]
    }

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(3000))]
        /// The reader agrees with serde_json (the reference) on every text of
        /// these tokens, and takes the text split anywhere the same way.
        #[test]
        fn agrees_with_a_strict_reader(tokens in prop::collection::vec(token(), 1..24), cut in 0.0f64..1.0) {
            let s = tokens.concat();
            let ours = err(&s);
            let theirs = serde_json::from_str::<serde::de::IgnoredAny>(&s);
            let blank = s.trim_matches([' ', '\n']).is_empty();
            prop_assert_eq!(ours.is_none(), theirs.is_ok() || blank, "{:?}: {:?} / {:?}", s, ours, theirs.err());
            let k = ((s.len() as f64) * cut) as usize;
            let (a, b) = s.as_bytes().split_at(k);
            prop_assert_eq!(first_error(&Pieces::new(&[a, b])), ours);
        }
    }
}
