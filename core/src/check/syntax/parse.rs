//! Parsing under a budget, and the trees kept for the next edit.
//!
//! A full parse of a 1,000-line TypeScript file takes about 2 ms; an edit
//! of it takes about 1 ms. Parsing the new text *incrementally*, from the
//! tree of the old text edited by the one changed span, takes about
//! 0.1 ms. So every tree the check builds is kept (a few, bounded by
//! count and bytes), keyed by the exact text it was parsed from: the next
//! edit of that file in this process finds the tree of its old text and
//! pays only the incremental parse. The key is the text itself, compared
//! byte for byte, never a path or a hash: a tree is used only for the
//! bytes it describes, whatever renamed, rewrote or raced the file.
//!
//! Parsers are kept per thread (one per grammar), since creating one and
//! loading its grammar costs about as much as the incremental parse.
//! Every parse runs under a deadline checked by tree-sitter's progress
//! callback, so no grammar and no input can hold the engine.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::sync::Mutex;
use std::time::Instant;

use tree_sitter::{InputEdit, ParseOptions, Parser, Point, Tree};

use super::grammar::Grammar;

/// Trees kept at most.
const KEPT_TREES: usize = 8;
/// Bytes of text kept with them at most. A tree takes about 35 bytes of
/// memory per byte of its text (measured: 138 MiB for 4 MiB of
/// TypeScript), so this bounds the kept trees to about 140 MiB.
const KEPT_BYTES: usize = 4 << 20;
/// A text longer than this is not kept: its tree alone would be a quarter
/// of the bound, and so large a file is rarely edited in a run.
const KEPT_ONE: usize = 1 << 20;

/// A tree and the text it was parsed from.
struct Kept {
    grammar: Grammar,
    text: Vec<u8>,
    tree: Tree,
}

static KEPT: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

thread_local! {
    static PARSERS: RefCell<Vec<(Grammar, Parser)>> = const { RefCell::new(Vec::new()) };
}

/// The parse ran past its deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OutOfTime;

/// A text given as ordered pieces, read by offset.
pub(crate) struct Pieces<'a> {
    pieces: &'a [&'a [u8]],
    /// Offset of each piece's first byte.
    starts: Vec<usize>,
    len: usize,
}

impl<'a> Pieces<'a> {
    pub(crate) fn new(pieces: &'a [&'a [u8]]) -> Self {
        let mut starts = Vec::with_capacity(pieces.len());
        let mut len = 0;
        for p in pieces {
            starts.push(len);
            len += p.len();
        }
        Pieces {
            pieces,
            starts,
            len,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The pieces, in order.
    pub(crate) fn pieces(&self) -> &'a [&'a [u8]] {
        self.pieces
    }

    /// The bytes from `at` to the end of the piece holding `at`.
    pub(crate) fn from(&self, at: usize) -> &'a [u8] {
        if at >= self.len {
            return &[];
        }
        let k = self.starts.partition_point(|&s| s <= at) - 1;
        let mut k = k;
        // Skip empty pieces that start at `at`.
        while self.pieces[k].len() <= at - self.starts[k] {
            k += 1;
        }
        &self.pieces[k][at - self.starts[k]..]
    }

    /// The bytes from the start of the piece holding `at - 1` to `at`.
    pub(crate) fn before(&self, at: usize) -> &'a [u8] {
        if at == 0 || at > self.len {
            return &[];
        }
        let mut k = self.starts.partition_point(|&s| s < at) - 1;
        while self.pieces[k].is_empty() {
            k -= 1;
        }
        &self.pieces[k][..at - self.starts[k]]
    }

    /// The text in one buffer.
    pub(crate) fn to_vec(&self) -> Vec<u8> {
        self.pieces.concat()
    }
}

/// Parses `text` with `grammar`, reusing `old` (already edited to match)
/// when given; stopped (`OutOfTime`) past `deadline` or once `stop` says
/// so (the call was cancelled).
pub(crate) fn parse(
    grammar: Grammar,
    text: &Pieces<'_>,
    old: Option<&Tree>,
    (deadline, stop): (Instant, &dyn Fn() -> bool),
) -> Result<Tree, OutOfTime> {
    // Never hand a scanner a text too deep for its buffer (see `depth`): it
    // would abort the process.
    if super::depth::too_deep(grammar, text.pieces) {
        return Err(OutOfTime);
    }
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let k = match parsers.iter().position(|(g, _)| *g == grammar) {
            Some(k) => k,
            None => {
                let mut p = Parser::new();
                p.set_language(&grammar.language())
                    .expect("every compiled grammar matches the runtime's ABI (tested)");
                parsers.push((grammar, p));
                parsers.len() - 1
            }
        };
        let parser = &mut parsers[k].1;
        let mut late = |_: &tree_sitter::ParseState| {
            if Instant::now() > deadline || stop() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = ParseOptions::new().progress_callback(&mut late);
        let tree = parser.parse_with_options(&mut |at, _| text.from(at), old, Some(options));
        // A cancelled parse leaves the parser mid-way: the next parse must
        // start afresh.
        parser.reset();
        tree.ok_or(OutOfTime)
    })
}

/// The kept tree of exactly `text`, if any.
pub(crate) fn kept(grammar: Grammar, text: &[u8]) -> Option<Tree> {
    let kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    kept.iter()
        .find(|k| k.grammar == grammar && k.text == text)
        .map(|k| k.tree.clone())
}

/// Keeps `tree`, parsed from `text`, for the next edit (the least
/// recently kept trees go first).
pub(crate) fn keep(grammar: Grammar, text: Vec<u8>, tree: Tree) {
    if text.len() > KEPT_ONE {
        return;
    }
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    kept.retain(|k| !(k.grammar == grammar && k.text == text));
    kept.insert(
        0,
        Kept {
            grammar,
            text,
            tree,
        },
    );
    let mut bytes = 0;
    let mut n = 0;
    for k in kept.iter() {
        if n == KEPT_TREES || bytes + k.text.len() > KEPT_BYTES {
            break;
        }
        bytes += k.text.len();
        n += 1;
    }
    kept.truncate(n);
}

/// The one span where `old` and `new` differ, as tree-sitter describes an
/// edit: the common prefix and suffix are unchanged.
pub(crate) fn edit_between(old: &[u8], new: &Pieces<'_>) -> InputEdit {
    let n = new.len();
    let mut pre = 0;
    while pre < old.len() && pre < n {
        let chunk = new.from(pre);
        let m = chunk.len().min(old.len() - pre);
        let same = old[pre..pre + m]
            .iter()
            .zip(&chunk[..m])
            .position(|(a, b)| a != b)
            .unwrap_or(m);
        pre += same;
        if same < m {
            break;
        }
    }
    let mut suf = 0;
    let room = (old.len() - pre).min(n - pre);
    while suf < room {
        let chunk = new.before(n - suf);
        let m = chunk.len().min(room - suf);
        let o = &old[old.len() - suf - m..old.len() - suf];
        let same = o
            .iter()
            .rev()
            .zip(chunk[chunk.len() - m..].iter().rev())
            .position(|(a, b)| a != b)
            .unwrap_or(m);
        suf += same;
        if same < m {
            break;
        }
    }
    let start = point_at(old, pre);
    InputEdit {
        start_byte: pre,
        old_end_byte: old.len() - suf,
        new_end_byte: n - suf,
        start_position: start,
        old_end_position: point_at(old, old.len() - suf),
        new_end_position: advance(start, new, pre, n - suf),
    }
}

/// The row and byte column of offset `at` of `text`.
fn point_at(text: &[u8], at: usize) -> Point {
    let head = &text[..at];
    let row = memchr::memchr_iter(b'\n', head).count();
    let col = at - memchr::memrchr(b'\n', head).map_or(0, |i| i + 1);
    Point::new(row, col)
}

/// `start` moved over `new[from..to]`.
fn advance(start: Point, new: &Pieces<'_>, from: usize, to: usize) -> Point {
    let (mut row, mut col) = (start.row, start.column);
    let mut at = from;
    while at < to {
        let chunk = new.from(at);
        let chunk = &chunk[..chunk.len().min(to - at)];
        match memchr::memrchr(b'\n', chunk) {
            Some(i) => {
                row += memchr::memchr_iter(b'\n', chunk).count();
                col = chunk.len() - i - 1;
            }
            None => col += chunk.len(),
        }
        at += chunk.len();
    }
    Point::new(row, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_read_across_seams_and_empty_pieces() {
        let parts: [&[u8]; 4] = [b"ab", b"", b"cd", b"e"];
        let p = Pieces::new(&parts);
        assert_eq!(p.len(), 5);
        assert_eq!(p.from(0), b"ab");
        assert_eq!(p.from(2), b"cd");
        assert_eq!(p.from(3), b"d");
        assert_eq!(p.from(4), b"e");
        assert_eq!(p.from(5), b"");
        assert_eq!(p.before(5), b"e");
        assert_eq!(p.before(4), b"cd");
        assert_eq!(p.before(3), b"c");
        assert_eq!(p.before(2), b"ab");
        assert_eq!(p.before(0), b"");
        assert_eq!(p.to_vec(), b"abcde");
    }

    #[test]
    fn the_edit_spans_only_the_changed_bytes() {
        let old = b"a\nbc\nd\n";
        let parts: [&[u8]; 2] = [b"a\nb", b"XY\nZ\nd\n"];
        let e = edit_between(old, &Pieces::new(&parts));
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (3, 4, 7));
        assert_eq!(e.start_position, Point::new(1, 1));
        assert_eq!(e.old_end_position, Point::new(1, 2));
        assert_eq!(e.new_end_position, Point::new(2, 1));
        let same: [&[u8]; 1] = [old];
        let e = edit_between(old, &Pieces::new(&same));
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (7, 7, 7));
    }

    #[test]
    fn a_parse_past_its_deadline_stops_and_the_parser_recovers() {
        let text = "x = [".repeat(200_000);
        let parts: [&[u8]; 1] = [text.as_bytes()];
        let gone = Instant::now() - std::time::Duration::from_millis(1);
        let go = || false;
        let parsed = parse(Grammar::Python, &Pieces::new(&parts), None, (gone, &go));
        assert_eq!(parsed.err(), Some(OutOfTime));
        let later = Instant::now() + std::time::Duration::from_secs(10);
        let halt = || true;
        let parsed = parse(Grammar::Python, &Pieces::new(&parts), None, (later, &halt));
        assert_eq!(
            parsed.err(),
            Some(OutOfTime),
            "a cancelled call stops the parse"
        );
        let ok: [&[u8]; 1] = [b"x = 1\n"];
        let tree = parse(Grammar::Python, &Pieces::new(&ok), None, (later, &go)).unwrap();
        assert!(!tree.root_node().has_error());
    }
}
