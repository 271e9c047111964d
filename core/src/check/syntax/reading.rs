//! A second reading of a C, C++ or C# text: what a grammar that knew the
//! file's macros, or a newer version of the language, would read.
//!
//! The C and C++ grammars read macros unexpanded. Most invocations parse
//! as calls or names, but not those that stand for a statement, an
//! attribute or a declaration's decoration: `FMT_TRY { … } FMT_CATCH(...)
//! {}`, `int FMT_CAPI f(…);`, `FMT_PRAGMA_CLANG(diagnostic ignored "…")` at
//! file level. An edit that writes one is a parse error to the grammar and
//! valid code to the compiler: on real history these were the only false
//! reports left in C++ (3 in fmt's 317 files). The C# grammar predates C#
//! 14's extension blocks (`extension<T>(Box<T> b) { … }` in a static
//! class), which read as errors in the same way.
//!
//! So an error an edit seems to introduce in these languages is reported
//! only when the text read a second way still has it. The second reading
//! keeps every offset and line break (bytes are blanked or replaced one
//! for one) and:
//!
//! - in C and C++, blanks a macro-like name (`[A-Z_][A-Z0-9_]+`, one
//!   capital at least) where a name cannot stand: before another name or a
//!   block (`FMT_CAPI f`, `FMT_TRY {`), with its argument list where it is
//!   invoked as a statement or a declaration (`FMT_ASSERT(x);`, a pragma
//!   macro at file level, `FMT_CATCH(...) {}` inside a function, where the
//!   block stays a block); inside an expression an invocation becomes the
//!   name alone (`f(FMT_STRING("{}"))` reads `f(FMT_STRING      )`), and
//!   `TEST(a, b) {` at file level is left as the function definition the
//!   grammar already reads;
//! - in C#, reads an extension block's header `extension<T>(Box<T> b)` as a
//!   nested class `class   E<T>` with the parameter list blanked.
//!
//! An error that stays in both readings is reported as the first reading
//! found it. A real error is hidden only when it is made of such a macro's
//! own tokens (a `FOO(x)` missing its `;` reads as a macro that needs none),
//! and the constant of `a[MAX_SIZE;` stays a name, its error reported.

use super::grammar::Grammar;
use super::lexing::{comment_end, skip_space};
use super::preproc;

/// The second reading of `text` (as parsed: directives already blanked),
/// or `None` when it reads the same (always, but in C, C++, C#, and in
/// TypeScript and JavaScript: see [`scripts`](super::scripts)).
pub(crate) fn second(grammar: Grammar, text: &[u8]) -> Option<Vec<u8>> {
    match grammar {
        Grammar::C | Grammar::Cpp => macros_blanked(text),
        Grammar::CSharp => extension_blocks_as_classes(text),
        Grammar::TypeScript | Grammar::Tsx | Grammar::JavaScript => {
            super::scripts::second(grammar, text)
        }
        _ => None,
    }
}

/// What came before a token, as far as the macro rule needs it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Before {
    /// A statement or a declaration may start here: the file's start, `;`,
    /// `{`, `}`, or a `)` closing a condition.
    Start,
    /// A name or keyword that a declaration's next part may follow (`int`,
    /// `class`, `inline`), or `>` closing a template's parameters.
    Word,
    /// Inside an expression: after an operator, `(`, `[`, `,`, `return`.
    Operand,
}

/// Keywords after which an expression follows.
const EXPRESSION_KEYWORDS: &[&[u8]] = &[
    b"return",
    b"case",
    b"throw",
    b"sizeof",
    b"co_return",
    b"co_yield",
    b"co_await",
    b"delete",
    b"new",
];

/// The C and C++ second reading (see the module doc).
fn macros_blanked(text: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut before = Before::Start;
    // For each open brace: whether it opens a block of statements.
    let mut blocks: Vec<bool> = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let b = text[at];
        if b.is_ascii_whitespace() {
            at += 1;
        } else if let Some(end) = comment_end(text, at) {
            at = end;
        } else if b == b'"' || b == b'\'' {
            at = quoted_end(text, at);
            before = Before::Operand;
        } else if b.is_ascii_digit() {
            at = word_end(text, at);
            before = Before::Operand;
        } else if b.is_ascii_alphabetic() || b == b'_' {
            let end = word_end(text, at);
            let word = &text[at..end];
            if word.last() == Some(&b'R') && text.get(end) == Some(&b'"') {
                at = raw_string_end(text, end);
                before = Before::Operand;
                continue;
            }
            if !is_macro_name(word) {
                before = if EXPRESSION_KEYWORDS.contains(&word) {
                    Before::Operand
                } else if word == b"else" || word == b"do" || word == b"try" {
                    Before::Start
                } else {
                    Before::Word
                };
                at = end;
                continue;
            }
            let in_block = blocks.last().copied().unwrap_or(false);
            (at, before) = macro_use(text, (at, end), before, in_block, &mut out);
        } else {
            match b {
                b'{' => {
                    let in_block = blocks.last().copied().unwrap_or(false);
                    blocks.push(in_block || before == Before::Start && opens_block(text, at));
                    before = Before::Start;
                }
                b'}' => {
                    blocks.pop();
                    before = Before::Start;
                }
                b';' => before = Before::Start,
                b')' => before = Before::Start,
                b'>' => before = Before::Word,
                _ => before = Before::Operand,
            }
            at += 1;
        }
    }
    out
}

/// Whether the `{` at `at` (after a `)`, `else`, `do` or `try`, or a macro
/// blanked before it) opens a block of statements rather than a class or a
/// namespace: its previous significant byte is not a name's but a `)`, or
/// the previous word is `else`, `do`, `try`.
fn opens_block(text: &[u8], at: usize) -> bool {
    let head = text[..at].trim_ascii_end();
    match head.last() {
        Some(b')') => true,
        Some(b) if b.is_ascii_alphanumeric() || *b == b'_' => {
            let start = head
                .iter()
                .rposition(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                .map_or(0, |k| k + 1);
            matches!(&head[start..], b"else" | b"do" | b"try")
        }
        // A blanked macro (`FMT_TRY {`) leaves the `{` after the previous
        // statement's end.
        Some(b';' | b'{' | b'}') => true,
        _ => false,
    }
}

/// Reads the macro-like name `text[at..end]` used after `before` (inside
/// a block of statements or not), blanking what the second reading blanks:
/// where reading goes on, and what the next token comes after (a blanked
/// macro leaves what came before it).
fn macro_use(
    text: &[u8],
    (at, end): (usize, usize),
    before: Before,
    in_block: bool,
    out: &mut Option<Vec<u8>>,
) -> (usize, Before) {
    let after = skip_space(text, end);
    let invoked = (text.get(after) == Some(&b'('))
        .then(|| balanced_end(text, after))
        .flatten();
    match (before, invoked) {
        // Inside an expression a macro reads as a name.
        (Before::Operand, Some(close)) => {
            blank(out, text, after, close);
            (close, Before::Operand)
        }
        (Before::Operand, None) => (end, Before::Operand),
        (_, Some(close)) => {
            let then = skip_space(text, close);
            // `TEST(a, b) {` outside a function reads as a definition
            // already; inside one, the block stays a block.
            if text.get(then) == Some(&b'{') && !in_block {
                return (close, Before::Start);
            }
            blank(out, text, at, close);
            (close, before)
        }
        (_, None) => {
            let follows = text.get(after).copied();
            let decorates =
                follows.is_none_or(|c| c.is_ascii_alphabetic() || c == b'_' || c == b'{');
            if decorates {
                blank(out, text, at, end);
                (end, before)
            } else {
                (end, Before::Operand)
            }
        }
    }
}

/// Whether `word` looks like a macro: two characters or more, capitals,
/// digits and `_` only, one capital at least.
fn is_macro_name(word: &[u8]) -> bool {
    word.len() >= 2
        && !word[0].is_ascii_digit()
        && word.iter().any(u8::is_ascii_uppercase)
        && word
            .iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_')
}

/// Blanks `text[from..to]` in `out` (created from `text` on first use),
/// line breaks kept.
fn blank(out: &mut Option<Vec<u8>>, text: &[u8], from: usize, to: usize) {
    preproc::blank(&mut out.get_or_insert_with(|| text.to_vec())[from..to]);
}

fn word_end(text: &[u8], mut at: usize) -> usize {
    while text
        .get(at)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    {
        at += 1;
    }
    at
}

/// The end of the string or character literal opening at `at` (at the
/// line's end when it does not close there).
fn quoted_end(text: &[u8], at: usize) -> usize {
    let quote = text[at];
    let mut k = at + 1;
    while k < text.len() {
        match text[k] {
            b'\\' => k += 2,
            b'\n' => return k,
            c if c == quote => return k + 1,
            _ => k += 1,
        }
    }
    text.len()
}

/// The end of the raw string whose `"` is at `at` (`R"delim( … )delim"`).
fn raw_string_end(text: &[u8], at: usize) -> usize {
    let open = memchr::memchr(b'(', &text[at..]).map_or(text.len(), |k| at + k);
    let delim = &text[at + 1..open.min(text.len())];
    if open >= text.len() || delim.len() > 16 {
        return quoted_end(text, at);
    }
    let mut close = Vec::with_capacity(delim.len() + 2);
    close.push(b')');
    close.extend_from_slice(delim);
    close.push(b'"');
    memchr::memmem::find(&text[open..], &close).map_or(text.len(), |k| open + k + close.len())
}

/// The end (past the `)`) of the parenthesised list opening at `at`, when
/// it closes: strings, characters and comments skipped.
fn balanced_end(text: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut k = at;
    while k < text.len() {
        if let Some(end) = comment_end(text, k) {
            k = end;
            continue;
        }
        match text[k] {
            b'"' | b'\'' => {
                k = quoted_end(text, k);
                continue;
            }
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            // A statement's end inside the list: it does not close here.
            b';' | b'{' | b'}' => return None,
            _ => {}
        }
        k += 1;
    }
    None
}

/// The C# second reading: each extension block's header read as a nested
/// class's (see the module doc).
fn extension_blocks_as_classes(text: &[u8]) -> Option<Vec<u8>> {
    const WORD: &[u8] = b"extension";
    let mut out: Option<Vec<u8>> = None;
    for at in memchr::memmem::find_iter(text, WORD) {
        let end = at + WORD.len();
        let prev = text[..at].trim_ascii_end().last().copied();
        if at > 0 && (text[at - 1].is_ascii_alphanumeric() || text[at - 1] == b'_')
            || !matches!(prev, None | Some(b'{' | b'}' | b';' | b']'))
        {
            continue;
        }
        let mut k = skip_space(text, end);
        if text.get(k) == Some(&b'<') {
            match memchr::memchr(b'>', &text[k..]) {
                Some(n) => k = skip_space(text, k + n + 1),
                None => continue,
            }
        }
        if text.get(k) != Some(&b'(') {
            continue;
        }
        let Some(close) = balanced_end(text, k) else {
            continue;
        };
        let then = skip_space(text, close);
        if !(text.get(then) == Some(&b'{') || text[then..].starts_with(b"where")) {
            continue;
        }
        let out = out.get_or_insert_with(|| text.to_vec());
        out[at..end].copy_from_slice(b"class   E");
        preproc::blank(&mut out[k..close]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the text, a second reading keeps its length and every
        /// line break, and changes bytes only into spaces (C, C++) or into
        /// spaces and an extension header's `class   E` (C#).
        #[test]
        fn a_second_reading_keeps_every_offset(
            text in proptest::collection::vec(prop_oneof![
                Just(b'A'), Just(b'Z'), Just(b'_'), Just(b'a'), Just(b'('), Just(b')'), Just(b'{'),
                Just(b'}'), Just(b';'), Just(b'"'), Just(b'\''), Just(b'\\'), Just(b'/'), Just(b'*'),
                Just(b'\n'), Just(b'\r'), Just(b' '), Just(b'<'), Just(b'>'), Just(b'R'), Just(b'='),
                any::<u8>(),
            ], 0..200),
            ext in proptest::bool::ANY,
        ) {
            let mut text = text;
            if ext {
                text.splice(text.len() / 2..text.len() / 2, b"extension<T>(A a) {".iter().copied());
            }
            for grammar in [Grammar::C, Grammar::Cpp, Grammar::CSharp] {
                if let Some(out) = second(grammar, &text) {
                    prop_assert_eq!(out.len(), text.len());
                    for (k, (a, b)) in text.iter().zip(&out).enumerate() {
                        if a != b {
                            prop_assert!(*a != b'\n' && *a != b'\r', "line break changed at {}", k);
                            prop_assert!(*b == b' ' || (grammar == Grammar::CSharp && b"classE".contains(b)));
                        }
                    }
                }
            }
        }
    }

    fn read(grammar: Grammar, text: &str) -> String {
        let out = second(grammar, text.as_bytes())
            .map_or(text.to_owned(), |o| String::from_utf8(o).unwrap());
        assert_eq!(out.len(), text.len());
        assert_eq!(out.matches('\n').count(), text.matches('\n').count());
        out
    }

    #[test]
    fn macros_that_cannot_be_names_are_blanked_offsets_kept() {
        let cpp = Grammar::Cpp;
        assert_eq!(
            read(cpp, "int FMT_CAPI f(int a);\n"),
            "int          f(int a);\n"
        );
        assert_eq!(
            read(
                cpp,
                "void f() {\n  FMT_TRY { g(); }\n  FMT_CATCH(...) {}\n}\n"
            ),
            "void f() {\n          { g(); }\n                 {}\n}\n"
        );
        assert_eq!(
            read(cpp, "FMT_PRAGMA_CLANG(diagnostic ignored \"-Wx\")\n\nTEST(a, b) {\n  EXPECT_EQ(f(), 1);\n}\n"),
            "                                          \n\nTEST(a, b) {\n                   ;\n}\n"
        );
        // Inside an expression an invocation is the name alone; a constant
        // stays, in a statement too.
        assert_eq!(
            read(
                cpp,
                "int x = f(FMT_STRING(\"{}\"), MAX_SIZE);\nreturn MAX(a, b);\nMAX_SIZE = 2;\n"
            ),
            "int x = f(FMT_STRING      , MAX_SIZE);\nreturn MAX      ;\nMAX_SIZE = 2;\n"
        );
        // Strings, comments and raw strings are not read.
        let quiet = "auto s = \"FMT_X y\"; // FMT_Y z\nauto r = R\"x(FMT_Z w)x\"; /* FMT_W { */\n";
        assert_eq!(read(cpp, quiet), quiet);
        assert_eq!(second(cpp, b"int main() { return 0; }\n"), None);
    }

    #[test]
    fn an_extension_block_reads_as_a_nested_class() {
        let text = "public static class X {\n    extension<T>(Box<T> b) {\n        public T Get() => b.V;\n    }\n    extension(Box b)\n    {\n    }\n}\n";
        assert_eq!(
            read(Grammar::CSharp, text),
            "public static class X {\n    class   E<T>           {\n        public T Get() => b.V;\n    }\n    class   E       \n    {\n    }\n}\n"
        );
        // A method or a call named `extension` is not a block.
        let call = "class X {\n    void f() { extension(1); }\n    void extension(int a) { }\n}\n";
        assert_eq!(second(Grammar::CSharp, call.as_bytes()), None);
    }
}
