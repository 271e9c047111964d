pub mod fold;
pub mod indent;
pub mod legacy;
pub mod lines;
pub mod source;
#[cfg(test)]
pub mod test_seeds;
