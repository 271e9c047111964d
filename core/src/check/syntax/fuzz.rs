//! The syntax guard against hostile text (tests only): random byte
//! mutations of every language's sample file (runs inserted, deleted or
//! replaced, with NULs and invalid UTF-8), given as one piece or split in
//! two, must never panic, must return within the budget, and must report
//! only lines and columns of the new text; and deeply nested text (100,000
//! openers) in every grammar must end in a report, or a timeout, in time
//! and without overflowing the stack.

use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::samples::SAMPLES;
use super::{check, BUDGET};
use crate::result::syntax::SyntaxReport;

/// Time a check may take beyond its budget (the work after the parse, a
/// loaded machine).
const SLACK: Duration = Duration::from_millis(750);

/// One mutation: at a fraction of the text, delete `del` bytes and insert
/// `ins`.
type Mutation = (f64, usize, Vec<u8>);

fn mutate(text: &[u8], edits: &[Mutation]) -> Vec<u8> {
    let mut out = text.to_vec();
    for (at, del, ins) in edits {
        let at = ((out.len() as f64) * at) as usize;
        let at = at.min(out.len());
        let end = (at + del).min(out.len());
        out.splice(at..end, ins.iter().copied());
    }
    out
}

/// Checks `new` as `path` from `old`, within the budget, and returns the
/// report after checking its positions against `new`.
fn timed(path: &str, old: Option<&[u8]>, new: &[&[u8]]) -> Result<(), TestCaseError> {
    let t = Instant::now();
    let r = check(path, old, new);
    let took = t.elapsed();
    prop_assert!(took <= BUDGET + SLACK, "{path}: took {took:?}");
    if let Some(r) = r {
        within(&r, &new.concat())?;
    }
    Ok(())
}

/// The report's errors are at lines and columns of `new`.
fn within(r: &SyntaxReport, new: &[u8]) -> Result<(), TestCaseError> {
    if r.unchecked.is_some() {
        prop_assert!(r.errors.is_empty());
    }
    let lines: Vec<&[u8]> = new.split(|&b| b == b'\n').collect();
    for e in &r.errors {
        prop_assert!(e.line >= 1 && e.line <= lines.len(), "line {}", e.line);
        let line = lines[e.line - 1];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let chars = String::from_utf8_lossy(line).chars().count();
        prop_assert!(
            e.column >= 1 && e.column <= chars + 1,
            "column {} of a line of {chars}: {e:?}",
            e.column
        );
    }
    Ok(())
}

fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        any::<u8>(),
        Just(0u8),
        Just(0xff),
        Just(0xc3),
        Just(0xe2),
        Just(b'\n'),
        Just(b'"'),
        Just(b'('),
        Just(b'{'),
        Just(b'}'),
        Just(b'<'),
        Just(b' '),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (
        0.0..=1.0f64,
        0usize..12,
        prop::collection::vec(byte(), 0..12),
    )
}

proptest! {
    #![proptest_config(crate::text::test_seeds::config(300))]
    #[test]
    fn mutated_samples_are_checked_in_time_and_in_bounds(
        k in 0..SAMPLES.len(),
        edits in prop::collection::vec(mutation(), 1..5),
        split in 0.0..=1.0f64,
    ) {
        let s = &SAMPLES[k];
        let new = mutate(s.text.as_bytes(), &edits);
        let cut = ((new.len() as f64) * split) as usize;
        let (a, b) = new.split_at(cut.min(new.len()));
        timed(s.path, Some(s.text.as_bytes()), &[a, b])?;
        timed(s.path, None, &[&new])?;
        // The kept tree of the mutated text, back to the sample.
        timed(s.path, Some(&new), &[s.text.as_bytes()])?;
    }
}

/// 100,000 openers in every grammar, as a new file and as an edit of the
/// sample: a report or a timeout, in time. The parser keeps its stack on
/// the heap and the error walk is iterative, so the test thread's stack
/// is enough.
#[test]
fn deep_nesting_ends_in_time() {
    for s in SAMPLES {
        let (open, unit) = s.deep;
        let text = format!("{open}{}\n", unit.repeat(100_000));
        for old in [None, Some(s.text.as_bytes())] {
            let t = Instant::now();
            let r = check(s.path, old, &[text.as_bytes()]);
            let took = t.elapsed();
            assert!(took <= BUDGET + SLACK, "{}: deep: took {took:?}", s.name);
            let grammar = super::grammar::Grammar::of(s.path, s.text.as_bytes());
            let judged = old.is_some() || grammar.is_some_and(|g| g.judges_new_files());
            if !judged {
                // A new C, C++ or C# file is not judged (see verdict.rs).
                assert_eq!(r, None, "{}: deep, new file", s.name);
                continue;
            }
            let r = r.unwrap_or_else(|| panic!("{}: deep: not reported", s.name));
            within(&r, text.as_bytes()).unwrap_or_else(|e| panic!("{}: deep: {e}", s.name));
        }
    }
}

/// YAML built of block indicators, indentation, flow brackets, anchors and
/// tags at random, up to a few thousand bytes: every text either passes the
/// depth estimate and is checked (its scanner never overruns its buffer,
/// which would abort this process), or is left `unchecked: too_deep`.
fn yaml_piece() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("- "),
        Just("- "),
        Just("? "),
        Just(": "),
        Just("k: "),
        Just("k:"),
        Just(" "),
        Just("  "),
        Just("\n"),
        Just("\n  "),
        Just("x"),
        Just("&a "),
        Just("!!t "),
        Just("*a"),
        Just("["),
        Just("]"),
        Just("{"),
        Just("}"),
        Just(", "),
        Just("|\n"),
        Just("# - : "),
        Just("\"- : \""),
        Just("\t"),
    ]
}

proptest! {
    #![proptest_config(crate::text::test_seeds::config(200))]
    #[test]
    fn yaml_of_any_depth_never_aborts(
        pieces in prop::collection::vec(yaml_piece(), 1..1500),
        deep in 0usize..400,
    ) {
        let mut text = "- ".repeat(deep);
        text.push_str(&pieces.concat());
        timed("f.yml", None, &[text.as_bytes()])?;
        timed("f.yml", Some(b"a: 1\n"), &[text.as_bytes()])?;
    }
}

/// Python nested by indentation (spaces, tabs, form feeds, lines joined by a
/// backslash, comments, strings left open at the deepest line): every text
/// either passes the depth estimate and is checked (the scanner's stack of
/// indentations never overruns its buffer, which would abort this process),
/// or is left `unchecked: too_deep`.
fn python_indent() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just(" "),
        Just(" "),
        Just(" "),
        Just("\t"),
        Just("\x0c"),
        Just("\\\n"),
        Just("\\\r\n"),
        Just("\r"),
    ]
}

fn python_body() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("if 1:"),
        Just("if 1:"),
        Just("while x:"),
        Just("x = \"abc\""),
        Just("y = f'{a}'"),
        Just("# c"),
        Just("s = \"\"\"open"),
        Just("t = (1,"),
        Just(""),
    ]
}

proptest! {
    #![proptest_config(crate::text::test_seeds::config(60))]
    #[test]
    fn python_of_any_depth_never_aborts(
        lines in prop::collection::vec((prop::collection::vec(python_indent(), 0..4), python_body()), 1..120),
        deep in 200usize..700,
        step in 1usize..3,
        tail in prop_oneof![Just("x = \"abc\"\n"), Just("x = 'a' 'b' 'c'\n"), Just("pass\n")],
    ) {
        let mut text = String::new();
        for i in 0..deep {
            text.push_str(&" ".repeat(i * step));
            text.push_str("if 1:\n");
        }
        for (k, (indent, body)) in lines.iter().enumerate() {
            text.push_str(&" ".repeat((deep + k) * step));
            text.push_str(&indent.concat());
            text.push_str(body);
            text.push('\n');
        }
        text.push_str(&" ".repeat((deep + lines.len()) * step));
        text.push_str(tail);
        timed("f.py", None, &[text.as_bytes()])?;
        timed("f.py", Some(b"a = 1\n"), &[text.as_bytes()])?;
    }
}
