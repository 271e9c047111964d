//! A second reading of TypeScript and JavaScript: valid syntax the grammars
//! (tree-sitter-typescript 0.23, tree-sitter-javascript 0.25) read as
//! errors, rewritten into syntax they read, every offset and line break
//! kept.
//!
//! Written as new files, 592 of 43,624 valid declaration and script files
//! of npm packages were reported (TypeScript's own parser and `node
//! --check` accept every one); five constructs were 573 of them:
//!
//! - a default export's function without a name or body, an overload or a
//!   declaration (`export default function (): void;`, zod's locales):
//!   read as a named one, `export function        f(): void;`;
//! - the type of an import with type arguments or an array suffix
//!   (`import("./m").Y<string>`, `import("./m").Z[]`): read without the
//!   import, `              Y<string>`;
//! - variance annotations on type parameters (`interface A<in T>`, `<out
//!   T>`, `<in out T>`): read without them;
//! - reserved words as the names an `import { … }` or `export { … }`
//!   clause binds or exports (`export { _null as null }`, `import {
//!   instanceof as i }`, valid since ES2015): read as names made of `_`;
//! - `export type * from "./m"`: read without `type`.
//!
//! The first four are TypeScript's alone and read so only in TypeScript;
//! the reserved names in JavaScript too. A real error inside one of these
//! constructs can be hidden (`export { null }` with no `as`, invalid, reads
//! as `export { ____ }`); every other error stays in both readings and is
//! reported as the first reading found it.

use super::grammar::Grammar;
use super::lexing::{comment_end, skip_space};

/// The second reading of a TypeScript, TSX or JavaScript `text`, or `None`
/// when it reads the same.
pub(crate) fn second(grammar: Grammar, text: &[u8]) -> Option<Vec<u8>> {
    let typescript = matches!(grammar, Grammar::TypeScript | Grammar::Tsx);
    if !typescript && grammar != Grammar::JavaScript {
        return None;
    }
    let mut out: Option<Vec<u8>> = None;
    let mut k = 0;
    while k < text.len() {
        let c = text[k];
        if let Some(end) = skipped(text, k) {
            k = end;
            continue;
        }
        if !(c.is_ascii_alphabetic() || c == b'_' || c == b'$') {
            if typescript && matches!(c, b'<' | b',') {
                variance(&mut out, text, k + 1);
            }
            k += 1;
            continue;
        }
        let end = word_end(text, k);
        // A word's start: not inside a longer name (`a.import`, `$in`).
        let whole = k == 0 || !is_name(text[k - 1]) && text[k - 1] != b'.';
        if whole {
            match &text[k..end] {
                b"default" if typescript => anonymous_default(&mut out, text, k),
                b"import" if typescript => import_type(&mut out, text, k, end),
                b"export" if typescript => export_type_star(&mut out, text, end),
                _ => {}
            }
            if matches!(&text[k..end], b"import" | b"export") {
                reserved_names(&mut out, text, end);
            }
        }
        k = end;
    }
    out
}

fn is_name(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

fn word_end(text: &[u8], mut at: usize) -> usize {
    while text.get(at).copied().is_some_and(is_name) {
        at += 1;
    }
    at
}

/// The end of the comment or string literal at `at`, if one starts there
/// (a template literal to its closing backtick, its substitutions
/// included).
fn skipped(text: &[u8], at: usize) -> Option<usize> {
    match text[at] {
        b'/' => comment_end(text, at),
        quote @ (b'"' | b'\'' | b'`') => {
            let mut k = at + 1;
            while k < text.len() {
                match text[k] {
                    b'\\' => k += 2,
                    b'\n' if quote != b'`' => return Some(k),
                    c if c == quote => return Some(k + 1),
                    _ => k += 1,
                }
            }
            Some(text.len())
        }
        _ => None,
    }
}

/// `text[from..to]` in `out` (made from `text` on first use) replaced by
/// `with`, padded with spaces before it to the same length.
fn put(out: &mut Option<Vec<u8>>, text: &[u8], (from, to): (usize, usize), with: &[u8]) {
    let buf = out.get_or_insert_with(|| text.to_vec());
    let pad = (to - from) - with.len();
    buf[from..from + pad].fill(b' ');
    buf[from + pad..to].copy_from_slice(with);
}

/// `default [async] function (` read as `[async] function f(`.
fn anonymous_default(out: &mut Option<Vec<u8>>, text: &[u8], at: usize) {
    let mut k = skip_space(text, at + b"default".len());
    let asynchronous = text[k..].starts_with(b"async") && {
        let e = k + b"async".len();
        text.get(e).is_some_and(u8::is_ascii_whitespace) && {
            k = skip_space(text, e);
            true
        }
    };
    if !text[k..].starts_with(b"function") || text.get(k + 8).copied().is_some_and(is_name) {
        return;
    }
    let paren = skip_space(text, k + 8);
    if text.get(paren) != Some(&b'(') {
        return;
    }
    // `default ` makes room for the name.
    let head: &[u8] = if asynchronous {
        b"async function"
    } else {
        b"function"
    };
    // The words, then spaces, then the name right before `(`.
    let buf = out.get_or_insert_with(|| text.to_vec());
    buf[at..paren].fill(b' ');
    buf[at..at + head.len()].copy_from_slice(head);
    buf[paren - 1] = b'f';
}

/// `import("m").Y<T>` or `import("m").Z[]` read without `import("m").`.
fn import_type(out: &mut Option<Vec<u8>>, text: &[u8], at: usize, end: usize) {
    let open = skip_space(text, end);
    if text.get(open) != Some(&b'(') {
        return;
    }
    let quote = skip_space(text, open + 1);
    if !matches!(text.get(quote), Some(b'"' | b'\'')) {
        return;
    }
    let Some(after) = skipped(text, quote) else {
        return;
    };
    let close = skip_space(text, after);
    if text.get(close) != Some(&b')') || text.get(close + 1) != Some(&b'.') {
        return;
    }
    // The names after it, then `<` or `[`.
    let mut k = close + 2;
    loop {
        let e = word_end(text, k);
        if e == k {
            return;
        }
        k = e;
        if text.get(k) == Some(&b'.') {
            k += 1;
            continue;
        }
        break;
    }
    if matches!(text.get(skip_space(text, k)), Some(b'<' | b'[')) {
        put(out, text, (at, close + 2), b"");
    }
}

/// `export type *` read as `export *`.
fn export_type_star(out: &mut Option<Vec<u8>>, text: &[u8], end: usize) {
    let t = skip_space(text, end);
    if text[t..].starts_with(b"type") && text.get(skip_space(text, t + 4)) == Some(&b'*') {
        put(out, text, (t, t + 4), b"");
    }
}

/// After `<` or `,` (at `at`): `in`, `out` or `in out` before a type
/// parameter's name that a `,`, `>`, `=` or `extends` follows, read
/// without them.
fn variance(out: &mut Option<Vec<u8>>, text: &[u8], at: usize) {
    let mut k = skip_space(text, at);
    let start = k;
    let mut seen = 0;
    while seen < 2 {
        let e = word_end(text, k);
        let word = &text[k..e];
        if (word == b"in" || word == b"out") && text.get(e).is_some_and(u8::is_ascii_whitespace) {
            k = skip_space(text, e);
            seen += 1;
        } else {
            break;
        }
    }
    if seen == 0 {
        return;
    }
    let name_end = word_end(text, k);
    if name_end == k || text[k].is_ascii_digit() {
        return;
    }
    let next = skip_space(text, name_end);
    let follows = matches!(text.get(next), Some(b',' | b'>' | b'='))
        || (text[next..].starts_with(b"extends")
            && !text.get(next + 7).copied().is_some_and(is_name));
    if follows {
        put(out, text, (start, k), b"");
    }
}

/// Words reserved in JavaScript that an import or export clause may bind or
/// export under (`as null`), which the grammars read only as names.
const RESERVED: &[&[u8]] = &[
    b"break",
    b"case",
    b"catch",
    b"class",
    b"const",
    b"continue",
    b"debugger",
    b"delete",
    b"do",
    b"else",
    b"enum",
    b"extends",
    b"false",
    b"finally",
    b"for",
    b"function",
    b"if",
    b"import",
    b"in",
    b"instanceof",
    b"new",
    b"null",
    b"return",
    b"super",
    b"switch",
    b"this",
    b"throw",
    b"true",
    b"try",
    b"typeof",
    b"var",
    b"void",
    b"while",
    b"with",
    b"export",
];

/// The clause `{ … }` after `import` or `export` (at `end`), optionally
/// after `type` and, for an import, a default name and `,`: each reserved
/// word in it read as a name of `_`.
fn reserved_names(out: &mut Option<Vec<u8>>, text: &[u8], end: usize) {
    let mut k = skip_space(text, end);
    if text[k..].starts_with(b"type") && !text.get(k + 4).copied().is_some_and(is_name) {
        k = skip_space(text, k + 4);
    }
    if text.get(k).copied().is_some_and(is_name) {
        // `import a, { … }`
        let e = word_end(text, k);
        k = skip_space(text, e);
        if text.get(k) != Some(&b',') {
            return;
        }
        k = skip_space(text, k + 1);
    }
    if text.get(k) != Some(&b'{') {
        return;
    }
    let mut i = k + 1;
    while i < text.len() && text[i] != b'}' {
        if let Some(e) = skipped(text, i) {
            i = e;
            continue;
        }
        if is_name(text[i]) {
            let e = word_end(text, i);
            if RESERVED.contains(&&text[i..e]) {
                out.get_or_insert_with(|| text.to_vec())[i..e].fill(b'_');
            }
            i = e;
            continue;
        }
        // Anything else than names, `,`, white space: no such clause.
        if !(text[i] == b',' || text[i].is_ascii_whitespace()) {
            return;
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::super::check;

    /// Valid files the grammars read with errors (from npm packages),
    /// each clean now as a new file and as an edit.
    const VALID: &[(&str, &str)] = &[
        ("a.d.ts", "export default function (): void;\n"),
        ("a.d.ts", "declare const x: number;\nexport default function(a: string): void;\n"),
        ("a.ts", "export default async function (a: string): Promise<void>;\nexport default async function (a: string): Promise<void> {}\n"),
        ("a.ts", "type A = import(\"./m\").Y<string>;\nlet f: (x: import('./m').N.Y<number>) => void;\n"),
        ("a.ts", "type A = import(\"./m\").Z[];\n"),
        ("a.ts", "interface A<in T> { f(x: T): void }\ninterface B<out T, in out U = string> { g(): T }\n"),
        ("a.ts", "type F<in T extends object> = (t: T) => void;\n"),
        ("a.js", "const _null = 1;\nexport { _null as null };\n"),
        ("a.mjs", "import { instanceof as i, in as j } from './j.mjs';\nexport { function } from './j.mjs';\n"),
        ("a.ts", "import d, { null as n } from './m';\nexport type { x as default } from './m';\n"),
        ("a.ts", "export type * from \"./m\";\nexport type * as ns from \"./m\";\n"),
    ];

    #[test]
    fn valid_syntax_the_grammars_miss_is_not_reported() {
        for &(path, text) in VALID {
            assert_eq!(
                check(path, None, &[text.as_bytes()]),
                None,
                "{path}: {text}"
            );
            let old = "let x = 1;\n";
            assert_eq!(
                check(path, Some(old.as_bytes()), &[text.as_bytes()]),
                None,
                "{path}: {text}"
            );
        }
    }

    /// Errors next to those constructs are still reported.
    #[test]
    fn errors_beside_them_are_reported() {
        for (path, text) in [
            ("a.d.ts", "export default function (: void;\n"),
            ("a.ts", "interface A<in T { f(x: T): void }\n"),
            ("a.ts", "type A = import(\"./m\").Y<string;\n"),
            ("a.js", "export { _null as null;\n"),
            ("a.ts", "export type * from ;\n"),
            ("a.ts", "export default function (): void;\nlet x = ;\n"),
        ] {
            assert!(
                check(path, None, &[text.as_bytes()]).is_some(),
                "{path}: {text}"
            );
        }
    }

    /// JavaScript reads TypeScript's constructs as the errors they are.
    #[test]
    fn typescript_alone_in_javascript_is_an_error() {
        assert!(check("a.js", None, &[b"export type * from './m';\n"]).is_some());
        assert!(super::second(super::Grammar::JavaScript, b"interface A<in T> {}").is_none());
    }
}
