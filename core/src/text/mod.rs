pub(crate) mod diff_ops;
pub(crate) mod embedded_utf8;
pub(crate) mod fold;
pub(crate) mod indent;
pub(crate) mod lines;
#[cfg(test)]
pub(crate) mod test_seeds;
