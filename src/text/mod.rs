pub mod fold;
pub mod indent;
pub mod source;
#[cfg(test)]
pub mod test_seeds;
