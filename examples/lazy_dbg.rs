fn main() {
    let a: Vec<String> = std::env::args().collect();
    let old = std::fs::read(&a[1]).unwrap();
    let new = std::fs::read(&a[2]).unwrap();
    let r = patch_file_tool::testing::check::lazy_outcome(&old, &new);
    match r {
        patch_file_tool::testing::check::Lazy::Expanded(b) => { std::fs::write("/tmp/ld/out", b).unwrap(); println!("expanded") }
        o => println!("{o:?}"),
    }
}
