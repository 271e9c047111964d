//! SEARCH/REPLACE blocks, as aider and desktop-commander users write them:
//!
//! ````text
//! src/config.ts
//! ```ts
//! <<<<<<< SEARCH
//! export const retries = 2;
//! =======
//! export const retries = 3;
//! >>>>>>> REPLACE
//! ```
//! ````
//!
//! The path is the line just before `<<<<<<< SEARCH`, skipping code-fence
//! lines (but no other line), so it may sit before the fence or as the
//! fence's first line. When that line is blank or prose (see
//! `path_line`: `...`, a sentence, words without a `/`), the block has no
//! path line and belongs to the previous block's file; a first block without
//! one is a parse error at its SEARCH line. Markers take 5 to 9 of their
//! character (as aider accepts) and may have trailing whitespace. Section
//! texts are the lines between the markers, without the last line break.
//! Blocks for one file are kept in order; an empty SEARCH section in a
//! file's first block creates that file (which must not exist).

use super::{join_lines, text_lines, ParseError, TextLine};
use crate::model::{Base, Block, Changes, FileAction, FileOp, Format, OpPlan, Said};
use crate::printer;
use crate::result::files::LineEnding;
use crate::text::lines::line_ending;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Search,
    Divider,
    Replace,
}

fn run_of(s: &str, c: char) -> usize {
    s.chars().take_while(|&x| x == c).count()
}

/// Recognizes a marker line (trailing whitespace allowed, nothing before).
fn marker(line: &str) -> Option<Marker> {
    let t = line.trim_end();
    let check = |c: char, word: &str, m: Marker| {
        let n = run_of(t, c);
        if !(5..=9).contains(&n) {
            return None;
        }
        let rest = &t[n..];
        if word.is_empty() {
            return rest.is_empty().then_some(m);
        }
        (rest.starts_with(' ') && rest.trim_start() == word).then_some(m)
    };
    check('<', "SEARCH", Marker::Search)
        .or_else(|| check('=', "", Marker::Divider))
        .or_else(|| check('>', "REPLACE", Marker::Replace))
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// A path line as models decorate it: `**src/a.py**`, `` `src/a.py` ``,
/// `### src/a.py`, `src/a.py:`.
fn clean_path(line: &str) -> String {
    let mut s = line.trim();
    s = s.trim_start_matches('#').trim_start();
    for wrap in ["**", "`", "*", "\"", "'"] {
        if s.len() >= 2 * wrap.len() && s.starts_with(wrap) && s.ends_with(wrap) {
            s = &s[wrap.len()..s.len() - wrap.len()];
        }
    }
    let s = s.trim_end_matches(':').trim();
    s.to_string()
}

/// The path a line names, or `None` for a blank or prose line.
///
/// Decorations are removed first ([`clean_path`]). What is left is prose,
/// not a path, when it
/// - is only dots and ellipses (`...`, `…`, `[...]`: text left out),
/// - ends like a sentence (`.`, `!`, `?`, `,`, `;`), or
/// - has whitespace but no `/` or `\` (a sentence; a path with spaces names
///   its directory, as `docs/My Notes.md` does).
fn path_line(line: &str) -> Option<String> {
    if is_fence(line) {
        return None;
    }
    let p = clean_path(line);
    let elided = p
        .trim_matches(['(', ')', '[', ']', '{', '}', '<', '>'])
        .chars()
        .all(|c| c == '.' || c == '…' || c.is_whitespace());
    let sentence_end = p.ends_with(['.', '!', '?', ',', ';']);
    let words = p.contains(char::is_whitespace) && !p.contains(['/', '\\']);
    (!elided && !sentence_end && !words).then_some(p)
}

/// A parsed block before grouping by file.
struct Parsed {
    path: String,
    path_line: usize,
    block: Block,
}

enum State<'a> {
    Outside,
    Search {
        open: usize,
        path: (String, usize),
        lines: Vec<TextLine<'a>>,
    },
    Replace {
        open: usize,
        path: (String, usize),
        search: String,
        lines: Vec<TextLine<'a>>,
    },
}

/// Parses SEARCH/REPLACE blocks into a plan.
pub fn parse(text: &str) -> Result<OpPlan, ParseError> {
    let lines = text_lines(text);
    let mut blocks: Vec<Parsed> = Vec::new();
    let mut state = State::Outside;
    // The last non-fence line outside a block (blank lines included) and
    // its number: the path line if it names one when a block opens.
    let mut before: Option<(&str, usize)> = None;
    let mut last_path: Option<(String, usize)> = None;

    for l in &lines {
        let m = marker(l.text);
        state = match state {
            State::Outside => match m {
                Some(Marker::Search) => {
                    let path = block_path(before.take(), last_path.as_ref(), l.no)?;
                    last_path = Some(path.clone());
                    State::Search {
                        open: l.no,
                        path,
                        lines: Vec::new(),
                    }
                }
                Some(_) => {
                    return Err(ParseError::new(
                        l.no,
                        "`<<<<<<< SEARCH` before a `=======` or `>>>>>>> REPLACE` line",
                        l.text,
                    ))
                }
                None => {
                    if !is_fence(l.text) {
                        before = Some((l.text, l.no));
                    }
                    State::Outside
                }
            },
            State::Search {
                open,
                path,
                mut lines,
            } => match m {
                None => {
                    lines.push(*l);
                    State::Search { open, path, lines }
                }
                Some(Marker::Divider) => State::Replace {
                    open,
                    path,
                    search: join_lines(&lines, false),
                    lines: Vec::new(),
                },
                Some(_) => {
                    return Err(ParseError::new(
                        l.no,
                        printer::search_end_expected(open),
                        l.text,
                    ))
                }
            },
            State::Replace {
                open,
                path,
                search,
                mut lines,
            } => match m {
                None => {
                    lines.push(*l);
                    State::Replace {
                        open,
                        path,
                        search,
                        lines,
                    }
                }
                Some(Marker::Replace) => {
                    blocks.push(Parsed {
                        path: path.0,
                        path_line: path.1,
                        block: Block {
                            search,
                            replace: join_lines(&lines, false),
                            line: open,
                            said: Said::BLOCK,
                        },
                    });
                    before = None;
                    State::Outside
                }
                Some(_) => {
                    return Err(ParseError::new(
                        l.no,
                        printer::block_end_expected(open),
                        l.text,
                    ))
                }
            },
        };
    }
    unclosed(&state)?;
    if blocks.is_empty() {
        return Err(ParseError::other(
            1,
            "`<<<<<<< SEARCH`",
            "expected at least one block: a file path line, `<<<<<<< SEARCH`, the exact current text, `=======`, \
             the new text, `>>>>>>> REPLACE`",
        ));
    }
    group(blocks)
}

/// The file a block opened at line `no` edits: the path on the line
/// before it (`prev`, fences skipped), else the previous block's file.
fn block_path(
    prev: Option<(&str, usize)>,
    last_path: Option<&(String, usize)>,
    no: usize,
) -> Result<(String, usize), ParseError> {
    let named = prev.and_then(|(t, n)| Some((path_line(t)?, n)));
    named.or_else(|| last_path.cloned()).ok_or_else(|| {
        ParseError::other(
            no,
            "a file path line before `<<<<<<< SEARCH`",
            printer::no_block_path(prev),
        )
    })
}

/// The error for a text that ends inside a block.
fn unclosed(state: &State<'_>) -> Result<(), ParseError> {
    match state {
        State::Outside => Ok(()),
        State::Search { open, .. } => Err(ParseError::other(
            *open,
            "`=======`",
            "the block opened here is not closed: expected `=======` and `>>>>>>> REPLACE` before the end of the text",
        )),
        State::Replace { open, .. } => Err(ParseError::other(
            *open,
            "`>>>>>>> REPLACE`",
            "the block opened here is not closed: expected `>>>>>>> REPLACE` before the end of the text",
        )),
    }
}

/// Groups blocks by file (in order of first appearance), turning a first
/// block with an empty SEARCH section into a file creation.
fn group(blocks: Vec<Parsed>) -> Result<OpPlan, ParseError> {
    let mut ops: Vec<FileOp> = Vec::new();
    for p in blocks {
        let idx = match ops.iter().position(|o| o.path == p.path) {
            Some(i) => i,
            None => {
                ops.push(FileOp {
                    path: p.path.clone(),
                    line: p.path_line,
                    action: FileAction::Write {
                        base: Base::Existing,
                        changes: Changes::Blocks(Vec::new()),
                        move_to: None,
                    },
                });
                ops.len() - 1
            }
        };
        let FileAction::Write {
            base,
            changes: Changes::Blocks(list),
            ..
        } = &mut ops[idx].action
        else {
            unreachable!("edit blocks only build writes")
        };
        if p.block.search.is_empty() {
            if !list.is_empty() || *base != Base::Existing {
                return Err(ParseError::other(
                    p.block.line,
                    "a non-empty SEARCH section",
                    printer::empty_search_not_first(&p.path),
                ));
            }
            let mut text = p.block.replace;
            // The final line break the block's own lines use (CRLF lines
            // ended with LF were a file of mixed breaks).
            if !text.is_empty() && !text.ends_with('\n') {
                let crlf = line_ending(text.as_bytes()) == LineEnding::Crlf;
                text.push_str(if crlf { "\r\n" } else { "\n" });
            }
            *base = Base::New {
                text,
                replace: false,
            };
        } else {
            list.push(p.block);
        }
    }
    for op in &mut ops {
        if let FileAction::Write { changes, .. } = &mut op.action {
            if matches!(changes, Changes::Blocks(l) if l.is_empty()) {
                *changes = Changes::None;
            }
        }
    }
    Ok(OpPlan {
        format: Format::EditBlocks,
        ops,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(p: &OpPlan, i: usize) -> &Vec<Block> {
        match &p.ops[i].action {
            FileAction::Write {
                changes: Changes::Blocks(b),
                ..
            } => b,
            other => panic!("not blocks: {other:?}"),
        }
    }

    #[test]
    fn plain_fenced_and_first_line_paths() {
        let t = "Intro text.\n\nsrc/a.ts\n```ts\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\n\
                 ```python\nlib/b.py\n<<<<<<< SEARCH\ndef f():\n    pass\n=======\ndef f():\n    return 1\n>>>>>>> REPLACE\n```\n\
                 **c.md**\n<<<<<<< SEARCH\nold\n=======\n>>>>>>> REPLACE\n";
        let p = parse(t).unwrap();
        assert_eq!(
            p.ops.iter().map(|o| o.path.as_str()).collect::<Vec<_>>(),
            ["src/a.ts", "lib/b.py", "c.md"]
        );
        assert_eq!(
            blocks(&p, 0)[0],
            Block {
                search: "x = 1".into(),
                replace: "x = 2".into(),
                line: 5,
                said: Said::BLOCK,
            }
        );
        assert_eq!(blocks(&p, 1)[0].search, "def f():\n    pass");
        assert_eq!(blocks(&p, 2)[0].replace, "");
        assert_eq!(p.ops[0].line, 3);
    }

    #[test]
    fn blocks_without_path_reuse_the_previous_file_and_group_in_order() {
        let t = "a.txt\n<<<<<<< SEARCH\n1\n=======\none\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n2\n=======\ntwo\n>>>>>>> REPLACE\n\
                 b.txt\n<<<<<<< SEARCH\nq\n=======\nQ\n>>>>>>> REPLACE\na.txt\n<<<<<<< SEARCH\n3\n=======\nthree\n>>>>>>> REPLACE\n";
        let p = parse(t).unwrap();
        assert_eq!(p.ops.len(), 2);
        assert_eq!(
            blocks(&p, 0)
                .iter()
                .map(|b| b.search.as_str())
                .collect::<Vec<_>>(),
            ["1", "2", "3"]
        );
    }

    #[test]
    fn empty_search_creates_then_later_blocks_edit() {
        let t = "new.txt\n<<<<<<< SEARCH\n=======\nhello\nworld\n>>>>>>> REPLACE\n";
        let p = parse(t).unwrap();
        assert_eq!(
            p.ops[0].action,
            FileAction::Write {
                base: Base::New {
                    text: "hello\nworld\n".into(),
                    replace: false
                },
                changes: Changes::None,
                move_to: None
            }
        );
        let bad = "a\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n=======\nz\n>>>>>>> REPLACE\n";
        assert_eq!(parse(bad).unwrap_err().line, 7);
    }

    #[test]
    fn crlf_text_and_marker_variants() {
        let t = "f.txt\r\n<<<<<<<  SEARCH  \r\na\r\nb\r\n=====\r\nc\r\n>>>>>>>>> REPLACE\r\n";
        let p = parse(t).unwrap();
        assert_eq!(blocks(&p, 0)[0].search, "a\r\nb");
        assert_eq!(blocks(&p, 0)[0].replace, "c");
    }

    #[test]
    fn path_lines_and_prose() {
        for (line, path) in [
            ("src/a.py", Some("src/a.py")),
            ("**src/a.py**", Some("src/a.py")),
            ("### c.txt:", Some("c.txt")),
            ("Makefile", Some("Makefile")),
            ("docs/My Notes.md", Some("docs/My Notes.md")),
            ("", None),
            ("   ", None),
            ("...", None),
            ("…", None),
            ("[...]", None),
            ("(...)", None),
            ("Here is the change:", None),
            ("I will update the constant.", None),
            ("Done!", None),
            ("Then the second one", None),
            ("```python", None),
        ] {
            assert_eq!(path_line(line).as_deref(), path, "{line:?}");
        }
    }

    #[test]
    fn a_blank_or_prose_line_before_a_block_is_no_path() {
        let t = "a.txt\n<<<<<<< SEARCH\n1\n=======\none\n>>>>>>> REPLACE\n\nNow the next line:\n\n\
                 <<<<<<< SEARCH\n2\n=======\ntwo\n>>>>>>> REPLACE\nb.txt\n\n<<<<<<< SEARCH\n3\n=======\nthree\n>>>>>>> REPLACE\n";
        let p = parse(t).unwrap();
        assert_eq!(p.ops.len(), 1);
        assert_eq!(blocks(&p, 0).len(), 3);
        let e = parse("Here is the change:\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n")
            .unwrap_err();
        assert_eq!(e.line, 2);
        assert!(
            e.message
                .contains("line 1 (`Here is the change:`) is prose"),
            "{}",
            e.message
        );
        let e =
            parse("a.txt\n\n```\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n").unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.message.contains("line 2 is blank"), "{}", e.message);
    }

    #[test]
    fn malformed_inputs_name_line_and_expectation() {
        let cases: &[(&str, usize, &str)] = &[
            ("", 1, "`<<<<<<< SEARCH`"),
            ("just prose\n", 1, "`<<<<<<< SEARCH`"),
            (
                "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
                1,
                "a file path line",
            ),
            ("f\n<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n", 4, "`=======`"),
            ("f\n<<<<<<< SEARCH\na\n<<<<<<< SEARCH\n", 4, "`=======`"),
            ("f\n<<<<<<< SEARCH\na\n=======\nb\n", 2, "`>>>>>>> REPLACE`"),
            ("f\n<<<<<<< SEARCH\na\n", 2, "`=======`"),
            ("f\n=======\n", 2, "`<<<<<<< SEARCH`"),
            (
                "f\n<<<<<<< SEARCH\na\n=======\nb\n=======\n",
                6,
                "`>>>>>>> REPLACE`",
            ),
        ];
        for (t, line, exp) in cases {
            let e = parse(t).unwrap_err();
            assert_eq!(e.line, *line, "{t:?}: {}", e.message);
            assert!(e.expected.starts_with(exp), "{t:?}: {}", e.expected);
        }
    }
}
