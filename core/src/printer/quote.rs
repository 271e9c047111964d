//! How a message quotes a caller's text: whole when short, cut at a
//! bound when long, so that a refusal never echoes megabytes back.

/// How many characters of a caller's text a message quotes.
pub(crate) const SHOWN_CHARS: usize = 64;

/// A caller's text (a field name, a value, a path) as a message quotes it:
/// whole when short, else its first [`SHOWN_CHARS`] characters and its
/// length.
pub(crate) fn shown(s: &str) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(SHOWN_CHARS) {
        None => s.into(),
        Some((cut, _)) => format!("{}… ({} characters)", &s[..cut], s.chars().count()).into(),
    }
}

/// The plural ending of a count `n`: `"s"` unless it is one.
pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_text_is_cut_at_a_bound() {
        assert_eq!(shown("abc"), "abc");
        let exact = "é".repeat(SHOWN_CHARS);
        assert_eq!(shown(&exact), exact.as_str());
        let long = "é".repeat(4_000_000);
        let s = shown(&long);
        assert_eq!(
            s,
            format!("{}… (4000000 characters)", "é".repeat(SHOWN_CHARS))
        );
    }
}
