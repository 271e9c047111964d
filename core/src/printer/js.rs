//! What the addon says when a JavaScript argument cannot become JSON text,
//! or a result cannot become a JavaScript value. The addon (the root crate)
//! only converts: it reports what it met as an [`Unreadable`] at a path of
//! [`Segment`]s, and the words are made here (re-exported as `api::js`).

/// A JavaScript value that is not JSON text.
#[derive(Debug, Clone, PartialEq)]
pub enum Unreadable {
    /// Reading it threw (a getter).
    Threw,
    /// Node-API could not read it.
    NotRead,
    /// A string with an unpaired surrogate `unit` at UTF-16 index `index`.
    LoneSurrogate {
        unit: u16,
        index: usize,
    },
    /// More than `max` values in the whole argument.
    TooMany {
        max: usize,
    },
    /// A number JSON cannot hold (NaN, an infinity).
    Number(f64),
    /// Objects nested deeper than `max`.
    TooDeep {
        max: usize,
    },
    Function,
    Symbol,
    External,
    BigInt,
    /// An array of `len` elements, over the values left.
    LongArray {
        len: u32,
    },
    /// An object of `keys` keys, over the values left.
    ManyKeys {
        keys: u32,
    },
    /// An object with a key that is not text.
    Key(Box<Unreadable>),
}

/// Where in the argument: an array index or an object key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Index(u32),
    Key(String),
}

/// The hint for values that are not JSON at all.
const PLAIN_JSON: &str =
    "which cannot be sent; pass plain JSON values (objects, arrays, strings, numbers, booleans)";

/// The hint for a string with a lone surrogate.
const WELL_FORMED: &str = "which is not text: it would reach the file or the path as U+FFFD, so nothing was done; send well-formed strings (every \\uD800-\\uDBFF followed by a \\uDC00-\\uDFFF)";

/// Path segments shown at most (a cyclic path is cut short).
const SHOWN_SEGMENTS: usize = 8;

impl Unreadable {
    /// What it is, as the message names it.
    fn what(&self) -> String {
        match self {
            Unreadable::Threw => "a value that threw an exception when read".into(),
            Unreadable::NotRead => "a value Node-API could not read".into(),
            Unreadable::LoneSurrogate { unit, index } => {
                format!("a string with a lone surrogate (\\u{unit:04X} at UTF-16 index {index})")
            }
            Unreadable::TooMany { max } => format!("too large (more than {max} values in all)"),
            Unreadable::Number(f) => format!("the number {f}"),
            Unreadable::TooDeep { max } => {
                format!("an object nested deeper than {max} levels (a cyclic object?)")
            }
            Unreadable::Function => "a function".into(),
            Unreadable::Symbol => "a symbol".into(),
            Unreadable::External => "an external value".into(),
            Unreadable::BigInt => "a BigInt".into(),
            Unreadable::LongArray { len } => format!("an array of {len} elements, too many"),
            Unreadable::ManyKeys { keys } => format!("an object with {keys} keys, too many"),
            Unreadable::Key(inner) => format!("an object with a key that is {}", inner.what()),
        }
    }

    /// What to send instead.
    fn hint(&self) -> &'static str {
        match self {
            Unreadable::LoneSurrogate { .. } => WELL_FORMED,
            Unreadable::Key(inner) => inner.hint(),
            _ => PLAIN_JSON,
        }
    }
}

/// The `INVALID_INPUT` message for `what` met at `at` (innermost segment
/// first) inside the argument named `arg` (`input`, `options`).
pub fn unreadable(arg: &str, at: &[Segment], what: &Unreadable) -> String {
    let mut path = String::from(arg);
    for seg in at.iter().rev().take(SHOWN_SEGMENTS) {
        match seg {
            Segment::Index(i) => path.push_str(&format!("[{i}]")),
            Segment::Key(k) => {
                path.push('.');
                path.push_str(k);
            }
        }
    }
    if at.len() > SHOWN_SEGMENTS {
        path.push('…');
    }
    format!("{path} is {}, {}", what.what(), what.hint())
}

/// The `RESULT_TOO_LARGE` message: the result could not become a
/// JavaScript value (`reason`, from Node-API).
pub fn result_too_large(reason: &str) -> String {
    format!(
        "the result is too large to hand to JavaScript ({reason}). Ask for less: a line range \
         (offset/limit), a view_range, or one file at a time"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_reads_outermost_first_and_a_deep_one_is_cut() {
        let at = [
            Segment::Key("b".into()),
            Segment::Index(1),
            Segment::Key("a".into()),
        ];
        assert_eq!(
            unreadable("input", &at, &Unreadable::Number(f64::NAN)),
            format!("input.a[1].b is the number NaN, {PLAIN_JSON}")
        );
        let deep: Vec<Segment> = (0..10).map(|_| Segment::Key("self".into())).collect();
        let m = unreadable("input", &deep, &Unreadable::TooDeep { max: 64 });
        assert!(
            m.starts_with(&format!(
                "input{}… is an object nested deeper than 64 levels",
                ".self".repeat(8)
            )),
            "{m}"
        );
    }

    #[test]
    fn a_lone_surrogate_names_its_unit_and_asks_for_well_formed_text() {
        let s = Unreadable::LoneSurrogate {
            unit: 0xD800,
            index: 3,
        };
        assert_eq!(
            unreadable("options", &[Segment::Key("workspaceRoot".into())], &s),
            format!("options.workspaceRoot is a string with a lone surrogate (\\uD800 at UTF-16 index 3), {WELL_FORMED}")
        );
        // A key that is not text keeps the hint of what it is.
        let k = Unreadable::Key(Box::new(s));
        assert!(unreadable("input", &[], &k)
            .starts_with("input is an object with a key that is a string with a lone surrogate"));
        assert!(unreadable("input", &[], &k).ends_with(WELL_FORMED));
    }
}
