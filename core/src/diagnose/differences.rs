//! The kinds of difference a not-found diagnosis names
//! (`likeness::classify`), each end to end: the closest match, its kinds,
//! the text handed back and the message.

use crate::diagnose::testutil::{diag, kinds, RUST};

#[test]
fn line_endings() {
    let text = RUST.replace('\n', "\r\n");
    let d = diag(
        &text,
        "    if name.is_empty() {\n        return;\n    }",
        "x",
    );
    let c = d.closest_match.as_ref().unwrap();
    assert_eq!((c.line_number, c.end_line), (6, 8));
    assert_eq!(kinds(&d), vec!["line_endings"]);
    assert_eq!(
        c.text,
        "    if name.is_empty() {\r\n        return;\r\n    }"
    );
    assert_eq!(&text.as_bytes()[c.start..c.end], c.text.as_bytes());
    let m = d.message.unwrap();
    assert!(m.contains("line endings") && m.contains("CRLF"), "{m}");
    assert!(m.contains("match: [\"line_endings\"]"), "{m}");
}

#[test]
fn indentation_tabs_vs_spaces_and_depth() {
    let text = RUST.replace("    ", "\t");
    let d = diag(
        &text,
        "    let total = compute(1, 2);\n    println!(\"{total}\");",
        "x",
    );
    let c = d.closest_match.as_ref().unwrap();
    assert_eq!((c.line_number, c.end_line), (9, 10));
    assert_eq!(kinds(&d), vec!["indentation"]);
    assert!(
        c.differences[0].detail.contains("1 tab"),
        "{:?}",
        c.differences
    );
    assert!(c.differences[0].detail.contains("4 spaces"));
    let d = diag(RUST, "  a + b\n", "x");
    assert_eq!(kinds(&d), vec!["indentation"]);
    assert_eq!(d.closest_match.unwrap().text, "    a + b\n");
}

#[test]
fn trailing_whitespace() {
    let text = RUST.replace("return;\n", "return;  \n");
    let d = diag(&text, "        return;\n    }\n", "x");
    let c = d.closest_match.as_ref().unwrap();
    assert_eq!((c.line_number, c.end_line), (7, 8));
    assert_eq!(kinds(&d), vec!["trailing_whitespace"]);
    assert_eq!(c.text, "        return;  \n    }\n");
}

#[test]
fn invisible_characters() {
    let text = RUST.replace("let total =", "let total\u{a0}=");
    let d = diag(&text, "    let total = compute(1, 2);", "x");
    let c = d.closest_match.as_ref().unwrap();
    assert_eq!(c.line_number, 9);
    assert_eq!(kinds(&d), vec!["invisible_characters"]);
    assert!(c.differences[0].detail.contains("U+00A0"));
    let d = diag(RUST, "fn compute(a: i32,\u{200b} b: i32) -> i32 {", "x");
    assert_eq!(kinds(&d), vec!["invisible_characters"]);
    assert!(d.message.unwrap().contains("U+200B"));
}

#[test]
fn unicode_punctuation() {
    let d = diag(RUST, "    let name = “world”;", "x");
    let c = d.closest_match.as_ref().unwrap();
    assert_eq!(c.line_number, 4);
    assert_eq!(kinds(&d), vec!["unicode_punctuation"]);
    assert_eq!(c.text, "    let name = \"world\";");
    // Part of a line: the region narrows to the matching part.
    let d = diag(RUST, "name = “world”", "x");
    assert_eq!(d.closest_match.as_ref().unwrap().text, "name = \"world\"");
    assert_eq!(kinds(&d), vec!["unicode_punctuation"]);
}

#[test]
fn escaping() {
    let d = diag(RUST, "    println!(\\\"hello {name}\\\");", "x");
    assert_eq!(d.closest_match.as_ref().unwrap().line_number, 5);
    assert_eq!(kinds(&d), vec!["escaping"]);
    // Literal \n instead of line breaks.
    let d = diag(
        RUST,
        "fn compute(a: i32, b: i32) -> i32 {\\n    a + b\\n}",
        "x",
    );
    let c = d.closest_match.as_ref().unwrap();
    assert_eq!((c.line_number, c.end_line), (13, 15));
    assert_eq!(kinds(&d), vec!["escaping"]);
}

#[test]
fn case() {
    let d = diag(RUST, "fn Compute(a: i32, b: i32) -> i32 {", "x");
    assert_eq!(d.closest_match.as_ref().unwrap().line_number, 13);
    assert_eq!(kinds(&d), vec!["case"]);
}

#[test]
fn content_and_combined() {
    let d = diag(
        RUST,
        "    let total = compute(1, 3);\n    println!(\"{total}\");",
        "x",
    );
    let c = d.closest_match.as_ref().unwrap();
    assert_eq!((c.line_number, c.end_line), (9, 10));
    assert_eq!(kinds(&d), vec!["content"]);
    assert!(d.message.unwrap().contains("changed since it was read"));
    let text = RUST.replace('\n', "\r\n");
    let d = diag(
        &text,
        "    let total = compute(1, 3);\n    println!(\"{total}\");\n",
        "x",
    );
    assert_eq!(kinds(&d), vec!["line_endings", "content"]);
}
