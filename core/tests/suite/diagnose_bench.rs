//! Timings of near-miss diagnosis (ignored by default: timings are not
//! assertions). Run with
//!
//! ```text
//! cargo test --release --test diagnose_bench -- --ignored --nocapture
//! ```
//!
//! It prints the median time `diagnose` adds to a failed edit on a
//! 10,000-line source file for each kind of failure, and on a 200 MB file
//! how long a near miss takes (found by anchors) and how long a block with
//! nothing like it takes to give up within the default budget.

use std::time::{Duration, Instant};

use patch_file_core::testing::diagnose::{self, Budget, DEFAULT_BUDGET};

/// A TypeScript-like file of `n` lines: many similar handlers.
fn source(n: usize) -> String {
    let mut s = String::from(
        "import { Request, Response } from 'express';\nimport { db } from './db';\n\n",
    );
    let mut i = 0;
    while s.lines().count() < n {
        s.push_str(&format!(
            "export async function handler{i}(req: Request, res: Response) {{\n  const id = Number(req.params.id ?? {i});\n  if (!Number.isFinite(id)) {{\n    return res.status(400).json({{ error: 'bad id for handler {i}' }});\n  }}\n  const rows = await db.query('SELECT * FROM t{} WHERE id = $1', [id]);\n  if (rows.length === 0) {{\n    return res.status(404).end();\n  }}\n  return res.json(rows[0]);\n}}\n\n",
            i % 37
        ));
        i += 1;
    }
    s
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    f();
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

#[test]
#[ignore]
fn diagnosis_timings() {
    let text = source(10_000);
    let lines = text.lines().count();
    let mid = 500;
    let block = format!(
        "export async function handler{mid}(req: Request, res: Response) {{\n  const id = Number(req.params.id ?? {mid});\n  if (!Number.isFinite(id)) {{\n    return res.status(400).json({{ error: 'bad id for handler {mid}' }});\n  }}"
    );
    assert!(text.contains(&block));
    let cases: Vec<(&str, String, String)> = vec![
        (
            "indentation (4 spaces for 2)",
            block.replace("\n  ", "\n    "),
            "x".into(),
        ),
        (
            "line endings (CRLF block)",
            block.replace('\n', "\r\n"),
            "x".into(),
        ),
        (
            "content (stale line)",
            block.replace(&format!("?? {mid}"), "?? 0"),
            "x".into(),
        ),
        (
            "unicode punctuation",
            block
                .replace("'bad id", "\u{2018}bad id")
                .replace(&format!("{mid}' }}"), &format!("{mid}\u{2019} }}")),
            "x".into(),
        ),
        (
            "no candidate",
            "SELECT name FROM accounts WHERE deleted".into(),
            "x".into(),
        ),
        (
            "already applied",
            "return res.status(418)".into(),
            format!("return res.status(400).json({{ error: 'bad id for handler {mid}' }});"),
        ),
    ];
    println!("10,000-line file: {} lines, {} bytes", lines, text.len());
    for (name, search, replace) in &cases {
        let mut found = None;
        let t = time(21, || {
            let d = diagnose::not_found(
                text.as_bytes(),
                search,
                replace,
                "",
                patch_file_core::model::Said::CANONICAL,
                &Budget::new(DEFAULT_BUDGET),
                &[],
            );
            assert!(!d.incomplete);
            found = Some(d.closest_match.map(|c| {
                (
                    c.line_number,
                    c.differences
                        .iter()
                        .map(|x| x.kind.as_str())
                        .collect::<Vec<_>>(),
                )
            }));
        });
        println!(
            "  not found, {name}: median {:.2} ms -> {:?}",
            t.as_secs_f64() * 1e3,
            found.flatten()
        );
    }
    let t = time(21, || {
        let d = diagnose::ambiguous(
            text.as_bytes(),
            b"    return res.status(404).end();\n",
            &Budget::new(DEFAULT_BUDGET),
        );
        assert!(!d.incomplete);
        assert_eq!(d.unique_context_hint.len(), diagnose::MAX_HINTS);
    });
    println!(
        "  ambiguous (a line in every handler, {} occurrences): median {:.2} ms",
        text.matches("    return res.status(404).end();\n").count(),
        t.as_secs_f64() * 1e3
    );

    // 200 MB (the file repeated, so every line occurs hundreds of times):
    // a near miss is found from anchors; a block with nothing like it in
    // the file falls back to the full scan, which gives up when the budget
    // is spent.
    let copies = 200_000_000 / text.len() + 1;
    let big = text.repeat(copies);
    println!(
        "200 MB file ({} bytes, {} lines), budget {} units:",
        big.len(),
        lines * copies,
        DEFAULT_BUDGET,
    );
    for (name, search) in [
        ("indentation", block.replace("\n  ", "\n    ")),
        (
            "content (stale line)",
            block.replace(&format!("?? {mid}"), "?? 0"),
        ),
        (
            "no candidate",
            "SELECT name FROM accounts WHERE deleted".into(),
        ),
    ] {
        let t = Instant::now();
        let d = diagnose::not_found(
            big.as_bytes(),
            &search,
            "x",
            "",
            patch_file_core::model::Said::CANONICAL,
            &Budget::new(DEFAULT_BUDGET),
            &[],
        );
        let took = t.elapsed();
        println!(
            "  not found, {name}: returned after {:.1} ms, incomplete: {}, closest line {:?}",
            took.as_secs_f64() * 1e3,
            d.incomplete,
            d.closest_match.map(|c| c.line_number)
        );
    }
    let t = Instant::now();
    let d = diagnose::ambiguous(
        big.as_bytes(),
        b"  return res.json(rows[0]);\n",
        &Budget::new(DEFAULT_BUDGET),
    );
    println!(
        "200 MB file, ambiguous block: returned after {:.1} ms, incomplete: {}",
        t.elapsed().as_secs_f64() * 1e3,
        d.incomplete
    );
}
