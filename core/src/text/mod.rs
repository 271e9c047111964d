pub(crate) mod embedded_utf8;
pub(crate) mod fold;
pub(crate) mod indent;
pub(crate) mod legacy;
pub(crate) mod lines;
pub(crate) mod source;
#[cfg(test)]
pub(crate) mod test_seeds;
