//! The syntax guard language by language (tests only): for every grammar,
//! a sample file ([`super::samples`]) broken by an edit (reported, at the
//! damage), edited validly (not reported), already broken elsewhere and
//! edited validly (not reported: the file stays editable), and already
//! broken and broken again elsewhere (reported). Then what holds for any
//! language: `#!` detection through [`check`], new files, the size limit,
//! and that a kept tree (incremental re-parse) says what a fresh parse
//! says.
//!
//! Each table-driven test runs every language and collects the failures,
//! each named by language and case, so one run shows all of them.

use super::parse;
use super::samples::{Sample, SampleEdit, SAMPLES};
use super::{check, grammar::Grammar, MAX_BYTES};
use crate::result::syntax::{SyntaxLanguage, SyntaxReport, Unchecked};

/// `text` with `edit` applied, and the 1-based line of the damage;
/// `find` must occur exactly once.
pub(super) fn apply(name: &str, text: &str, (find, replace): SampleEdit) -> (String, usize) {
    let at = text
        .find(find)
        .unwrap_or_else(|| panic!("{name}: {find:?} is not in the text"));
    assert_eq!(
        text.matches(find).count(),
        1,
        "{name}: {find:?} occurs more than once"
    );
    let line = 1 + text[..at].matches('\n').count();
    (text.replacen(find, replace, 1), line)
}

fn run(s: &Sample, old: Option<&str>, new: &str) -> Option<SyntaxReport> {
    check(s.path, old.map(str::as_bytes), &[new.as_bytes()])
}

/// Collects failures; panics with all of them at the end.
#[derive(Default)]
struct Failures(Vec<String>);

impl Failures {
    fn expect(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.0.push(what());
        }
    }

    fn done(self) {
        assert!(
            self.0.is_empty(),
            "{} failure(s):\n{}",
            self.0.len(),
            self.0.join("\n")
        );
    }
}

/// The report must list an error on `line` (or the line before or
/// after, where a parser puts a missing token), first, with `problem`
/// when given.
fn reported_at(
    f: &mut Failures,
    case: &str,
    s: &Sample,
    r: Option<SyntaxReport>,
    line: usize,
    problem: Option<crate::result::syntax::SyntaxProblem>,
) {
    let Some(r) = r else {
        return f.expect(false, || format!("{}: {case}: not reported", s.name));
    };
    let Some(first) = r.errors.first() else {
        return f.expect(false, || format!("{}: {case}: no errors: {r:?}", s.name));
    };
    f.expect(first.line.abs_diff(line) <= 1, || {
        format!(
            "{}: {case}: line {} for damage on {line}: {r:?}",
            s.name, first.line
        )
    });
    if let Some(p) = problem {
        f.expect(first.problem == p, || {
            format!(
                "{}: {case}: problem {:?}, wanted {p:?}: {r:?}",
                s.name, first.problem
            )
        });
    }
    let lang = Grammar::of(s.path, b"").map(SyntaxLanguage::as_str);
    f.expect(lang == Some(r.language.as_str()), || {
        format!("{}: {case}: language {:?}", s.name, r.language)
    });
}

fn not_reported(f: &mut Failures, case: &str, s: &Sample, r: Option<SyntaxReport>) {
    f.expect(r.is_none(), || {
        format!("{}: {case}: reported: {r:?}", s.name)
    });
}

#[test]
fn every_sample_parses_clean_as_a_new_file() {
    let mut f = Failures::default();
    for s in SAMPLES {
        not_reported(&mut f, "new valid file", s, run(s, None, s.text));
    }
    f.done();
}

#[test]
fn a_break_is_reported_at_the_damage() {
    let mut f = Failures::default();
    for s in SAMPLES {
        let ((edit, problem), _) = (s.brk, ());
        let (new, line) = apply(s.name, s.text, edit);
        reported_at(
            &mut f,
            "(a) break",
            s,
            run(s, Some(s.text), &new),
            line,
            problem,
        );
        let (new, line) = apply(s.name, s.text, s.dmg);
        reported_at(
            &mut f,
            "(a) other break",
            s,
            run(s, Some(s.text), &new),
            line,
            None,
        );
    }
    f.done();
}

#[test]
fn a_valid_edit_is_not_reported() {
    let mut f = Failures::default();
    for s in SAMPLES {
        let (new, _) = apply(s.name, s.text, s.ok);
        not_reported(&mut f, "(b) valid edit", s, run(s, Some(s.text), &new));
    }
    f.done();
}

#[test]
fn a_valid_edit_of_a_broken_file_is_not_reported() {
    let mut f = Failures::default();
    for s in SAMPLES {
        let (old, _) = apply(s.name, s.text, s.dmg);
        let (new, _) = apply(s.name, &old, s.ok);
        not_reported(
            &mut f,
            "(c) valid edit, broken elsewhere",
            s,
            run(s, Some(&old), &new),
        );
    }
    f.done();
}

#[test]
fn a_second_break_of_a_broken_file_is_reported() {
    let mut f = Failures::default();
    for s in SAMPLES {
        let (old, _) = apply(s.name, s.text, s.dmg);
        let ((edit, problem), _) = (s.brk, ());
        let (new, line) = apply(s.name, &old, edit);
        let grammar = Grammar::of(s.path, s.text.as_bytes()).expect("a checked language");
        if !grammar.judges_broken_files() {
            // A C, C++, C# or CSS file is judged only when it parsed before
            // the edit (see Grammar::judges_broken_files).
            not_reported(
                &mut f,
                "(d) second break, not judged (broken before)",
                s,
                run(s, Some(&old), &new),
            );
            continue;
        }
        reported_at(
            &mut f,
            "(d) second break",
            s,
            run(s, Some(&old), &new),
            line,
            problem,
        );
    }
    f.done();
}

/// A new file has no edit to put first: its errors are listed in order,
/// and the one at the damage must be among them (an outer error reaching
/// back to the enclosing function can come first). A new C, C++ or C#
/// file is not judged: its macros may be what the grammar cannot read.
#[test]
fn a_broken_new_file_is_reported() {
    let mut f = Failures::default();
    for s in SAMPLES {
        let (new, line) = apply(s.name, s.text, s.brk.0);
        let r = run(s, None, &new);
        let grammar = Grammar::of(s.path, s.text.as_bytes()).expect("a checked language");
        if !grammar.judges_new_files() {
            // A new C, C++ or C# file is not judged (see verdict.rs).
            f.expect(r.is_none(), || {
                format!("{}: new file judged: {r:?}", s.name)
            });
            continue;
        }
        let near = r
            .as_ref()
            .is_some_and(|r| r.errors.iter().any(|e| e.line.abs_diff(line) <= 1));
        f.expect(near, || {
            format!(
                "{}: new broken file: nothing listed near {line}: {r:?}",
                s.name
            )
        });
    }
    f.done();
}

#[test]
fn a_script_is_read_by_its_shebang() {
    let good =
        "#!/usr/bin/env python3\nimport sys\n\nif len(sys.argv) > 1:\n    print(sys.argv[1])\n";
    let bad = good.replace("> 1:", "> 1");
    assert_eq!(
        check("bin/tool", None, &[good.as_bytes()]),
        None,
        "valid script"
    );
    let r = check("bin/tool", Some(good.as_bytes()), &[bad.as_bytes()]).expect("broken script");
    assert_eq!(r.language, SyntaxLanguage::Python, "shebang language");
    assert_eq!(r.errors[0].line, 4, "shebang script line: {r:?}");
    let r = check("bin/tool", None, &[bad.as_bytes()]).expect("broken new script");
    assert_eq!(r.language, SyntaxLanguage::Python, "new script language");
    assert_eq!(
        check("bin/tool", None, &[b"just text (\n"]),
        None,
        "no shebang: unchecked"
    );
}

#[test]
fn a_file_over_the_limit_is_not_checked() {
    let big = format!("x = [{}]\n", "1, ".repeat(MAX_BYTES / 3));
    assert!(big.len() > MAX_BYTES);
    for (old, what) in [(None, "new"), (Some(b"x = 1\n".as_slice()), "edited")] {
        let r = check("a.py", old, &[big.as_bytes()]).unwrap_or_else(|| panic!("{what}: silent"));
        assert_eq!(r.unchecked, Some(Unchecked::TooLarge), "{what} too large");
        assert!(r.errors.is_empty(), "{what} too large: no errors");
    }
    let r = check("a.py", Some(big.as_bytes()), &[b"x = (\n"]).expect("old too large");
    assert_eq!(r.unchecked, Some(Unchecked::TooLarge), "old too large");
}

/// A kept tree gives what a fresh parse gives: a file broken by an edit,
/// edited validly, then broken again, each edit parsed incrementally from
/// the tree the previous check kept; against the same edits checked with
/// no tree kept. (Not against other texts of the same shape: trailing
/// blank lines alone change how the C++ grammar recovers.)
#[test]
fn a_kept_tree_says_what_a_fresh_parse_says() {
    let mut f = Failures::default();
    for (s, order) in SAMPLES.iter().flat_map(|s| [(s, 0), (s, 1)]) {
        let g = Grammar::of(s.path, b"").unwrap();
        let steps = [[s.dmg, s.ok, s.brk.0], [s.brk.0, s.ok, s.dmg]][order];
        let (t1, _) = apply(s.name, s.text, steps[0]);
        let (t2, _) = apply(s.name, &t1, steps[1]);
        let (t3, _) = apply(s.name, &t2, steps[2]);
        run(s, Some(s.text), &t1);
        for (k, (old, new)) in [(&t1, &t2), (&t2, &t3)].into_iter().enumerate() {
            // Other tests' checks can push the tree out between two
            // checks: keep it again if so (the window is microseconds).
            if parse::kept(g, old.as_bytes()).is_none() {
                run(s, None, old);
            }
            let kept = run(s, Some(old), new);
            // The tree kept for the next edit has the errors of a fresh
            // parse (error recovery parsed from an old tree differs).
            if let Some(t) = parse::kept(g, new.as_bytes()) {
                f.expect(same_errors_as_fresh(g, &t, new), || {
                    format!(
                        "{}: order {order}, edit {}: kept tree's errors",
                        s.name,
                        k + 2
                    )
                });
            }
            while parse::kept(g, old.as_bytes()).is_some()
                || parse::kept(g, new.as_bytes()).is_some()
            {
                forget_kept_trees(g);
            }
            let fresh = run(s, Some(old), new);
            f.expect(kept == fresh, || {
                format!(
                    "{}: kept tree, order {order}, edit {}: {kept:?}\nfresh: {fresh:?}",
                    s.name,
                    k + 2
                )
            });
        }
    }
    f.done();
}

/// Pushes every kept tree out, by keeping as many of tiny texts.
fn forget_kept_trees(g: Grammar) {
    let late = std::time::Instant::now() + std::time::Duration::from_secs(10);
    for i in 0..16 {
        let text = format!("{i}");
        let parts: [&[u8]; 1] = [text.as_bytes()];
        let tree = parse::parse(g, &parse::Pieces::new(&parts), None, (late, &|| false)).unwrap();
        parse::keep(g, text.into_bytes(), tree);
    }
}

/// Whether `tree`, parsed from `text`, has the errors a fresh parse of it
/// has.
fn same_errors_as_fresh(g: Grammar, tree: &tree_sitter::Tree, text: &str) -> bool {
    let late = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let parts: [&[u8]; 1] = [text.as_bytes()];
    let fresh = parse::parse(g, &parse::Pieces::new(&parts), None, (late, &|| false)).unwrap();
    let show = |t: &tree_sitter::Tree| format!("{:?}", super::errors::found(t, text.as_bytes(), g));
    show(tree) == show(&fresh)
}

/// A YAML file the grammar cannot read from its first line on is one
/// unplaced text whose token is that line: an edit of the line changed the
/// token, and the old error was reported as the edit's.
#[test]
fn an_edit_inside_text_left_unplaced_from_the_start_is_not_reported() {
    let old = "- a\nb: 1\nc: 2\n";
    for new in ["- a2\nb: 1\nc: 2\n", "- a\nb: 10\nc: 2\n"] {
        let r = check("f.yml", Some(old.as_bytes()), &[new.as_bytes()]);
        assert_eq!(r, None, "{new:?}");
    }
    // The same text is reported in a new file, and a break the file had
    // not still is in it.
    assert!(check("f.yml", None, &[old.as_bytes()]).is_some());
    let r = check("f.yml", Some(b"a: 1\nb: 2\n"), &[old.as_bytes()]);
    assert!(r.is_some_and(|r| !r.errors.is_empty()));
}

/// A file with more errors than are collected (200 nodes; 16 lines of
/// Python indentation): an edit that mends one of the first brought the
/// first one not collected into the list, reported as the edit's.
#[test]
fn an_edit_of_a_file_with_more_errors_than_collected_reports_none_it_had() {
    let block = |i: usize| format!("def f{i}():\n    if x:\n        y()\n  z{i}()\n");
    let py = |from: usize| (from..24).map(block).collect::<String>();
    let (old, new) = (py(0), py(1));
    assert_eq!(check("f.py", Some(old.as_bytes()), &[new.as_bytes()]), None);
    let js = |mended: usize| {
        (0..260)
            .map(|i| {
                if i == mended {
                    format!("f({i});\n")
                } else {
                    format!("f({i}));\n")
                }
            })
            .collect::<String>()
    };
    let (old, new) = (js(999), js(0));
    assert_eq!(check("f.js", Some(old.as_bytes()), &[new.as_bytes()]), None);
    // A break of its own is still reported.
    let broken = old.replacen("f(5));", "f(5)); var 1;", 1);
    assert!(check("f.js", Some(old.as_bytes()), &[broken.as_bytes()]).is_some());
}
