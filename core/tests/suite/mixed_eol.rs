//! Files that mix CRLF and LF line endings, as real history has them: a
//! patch's lines carry their own endings (as `git apply` reads them), a
//! line converted from CRLF to LF is a change and not a kept line, and a
//! tolerant match never lands on text that is the edit's own replacement.

use std::path::Path;

use patch_file_core::api;
use serde_json::{json, Value};

fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root, "durable": false, "journal": false })
}

fn with_file(name: &str, bytes: &[u8]) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join(name), bytes).unwrap();
    t
}

fn read(t: &tempfile::TempDir, name: &str) -> Vec<u8> {
    std::fs::read(t.path().join(name)).unwrap()
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).escape_debug().to_string()
}

/// A Codex envelope of `file` made from the file's own bytes (each line
/// with its ending, as `git diff` shows them).
fn codex(path: &str, body: &str) -> String {
    format!("*** Begin Patch\n*** Update File: {path}\n{body}*** End Patch\n")
}

#[test]
fn a_codex_patch_converting_a_crlf_file_to_lf_is_applied() {
    let before = b"<Project>\r\n  <A>1</A>\r\n  <B>2</B>\r\n</Project>\r\n";
    let t = with_file("p.csproj", before);
    let patch = codex(
        "p.csproj",
        "@@\n-<Project>\r\n-  <A>1</A>\r\n-  <B>2</B>\r\n-</Project>\r\n+<Project>\n+  <A>1</A>\n+  <B>3</B>\n+</Project>\n",
    );
    let r = api::apply_patch(&json!(patch), Some(&opts(t.path())));
    assert_eq!(r["ok"], true, "{r}");
    let after = read(&t, "p.csproj");
    assert_eq!(
        show(&after),
        show(b"<Project>\n  <A>1</A>\n  <B>3</B>\n</Project>\n")
    );
}

#[test]
fn a_line_whose_ending_a_patch_changes_in_a_mixed_file_is_applied() {
    // Line 3 (`{`) goes from LF to CRLF while the lines around it change:
    // a hunk of real history on a file that mixes endings.
    let before = b"class A\r\n{\r\n    void F()\n    {\n        x();\n    }\n}\r\n";
    let after = b"class A\r\n{\r\n    void F()\r\n    {\r\n        y();\r\n    }\n}\r\n";
    for (name, patch) in [
        (
            "codex",
            codex(
                "a.cs",
                "@@\n {\r\n-    void F()\n-    {\n-        x();\n+    void F()\r\n+    {\r\n+        y();\r\n     }\n",
            ),
        ),
        (
            "unified",
            "--- a/a.cs\n+++ b/a.cs\n@@ -2,6 +2,6 @@\n {\r\n-    void F()\n-    {\n-        x();\n+    void F()\r\n+    {\r\n+        y();\r\n     }\n }\r\n".to_string(),
        ),
    ] {
        let t = with_file("a.cs", before);
        let r = api::apply_patch(&json!(patch), Some(&opts(t.path())));
        assert_eq!(r["ok"], true, "{name}: {r}");
        assert_eq!(show(&read(&t, "a.cs")), show(after), "{name}");
    }
}

#[test]
fn a_unified_diff_adding_crlf_lines_to_an_lf_file_keeps_their_crs() {
    // `git diff` of a commit that added CRLF lines to an LF file: `git
    // apply` writes them with their CRs.
    let before = b"a\nb\nc\n";
    let diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n a\n b\n+new\r\n c\n";
    let t = with_file("f.txt", before);
    let r = api::apply_patch(&json!(diff), Some(&opts(t.path())));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&read(&t, "f.txt")), show(b"a\nb\nnew\r\nc\n"));
    // The same with the added line's CR: the ending follows the patch, as
    // `git apply` does, so `+x` without a CR in a CRLF run adds an LF line.
    let before = b"a\r\nb\r\nc\r\n";
    let diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n a\r\n b\r\n+new\n c\r\n";
    let t = with_file("f.txt", before);
    let r = api::apply_patch(&json!(diff), Some(&opts(t.path())));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&read(&t, "f.txt")), show(b"a\r\nb\r\nnew\nc\r\n"));
}

#[test]
fn a_patch_retyped_with_other_line_breaks_takes_the_files() {
    // An LF patch for a CRLF file (an agent's, not the file's bytes): added
    // lines take the file's endings, as before.
    let before = b"a\r\nb\r\nc\r\n";
    let t = with_file("f.txt", before);
    let patch = codex("f.txt", "@@\n a\n-b\n+B\n c\n");
    let r = api::apply_patch(&json!(patch), Some(&opts(t.path())));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&read(&t, "f.txt")), show(b"a\r\nB\r\nc\r\n"));
}

#[test]
fn a_re_indentation_sent_again_is_not_applied_twice() {
    // The commit moved two lines from 4 to 8 spaces; sent again, the lines
    // it moved match its search text under `indentation`, and would go to
    // 12.
    let search = "jobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n";
    let replace = "jobs:\n  build:\n        runs-on: ubuntu-latest\n        steps:\n";
    let landed = format!("name: ci\n{replace}      - uses: x\n");
    let t = with_file("ci.yml", landed.as_bytes());
    let exact = api::patch_file(
        &json!({"file_path": "ci.yml", "search": search, "replace": replace}),
        Some(&opts(t.path())),
    );
    assert_eq!(exact["ok"], false, "{exact}");
    let tolerant = api::patch_file(
        &json!({"file_path": "ci.yml", "search": search, "replace": replace,
                "match": ["line_endings", "trailing_whitespace", "indentation", "unicode_punctuation"]}),
        Some(&opts(t.path())),
    );
    assert_eq!(tolerant["ok"], false, "{tolerant}");
    assert_eq!(show(&read(&t, "ci.yml")), show(landed.as_bytes()));
}

#[test]
fn an_edit_that_only_changes_what_a_tolerance_forgives_is_not_matched_by_it() {
    // Tabs to spaces, the file already in spaces: the block matches under
    // `indentation` on its own replacement.
    let search = "\tif (x)\n\t\treturn;\n";
    let replace = "    if (x)\n        return;\n";
    let file = format!("void f()\n{{\n{replace}}}\n");
    let t = with_file("f.c", file.as_bytes());
    let r = api::patch_file(
        &json!({"file_path": "f.c", "search": search, "replace": replace, "match": ["indentation"]}),
        Some(&opts(t.path())),
    );
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(show(&read(&t, "f.c")), show(file.as_bytes()));
}

#[test]
fn a_tolerant_edit_keeps_the_line_endings_the_caller_changed() {
    // A mixed file; the caller converts the CRLF line `b` to LF and changes
    // `c`, but its copy lost the trailing space of `a`: the tolerant match
    // forgives the space, and writes the caller's endings where its block
    // ended as the file does.
    let file = b"x\na \r\nb\r\nc\nz\n";
    let t = with_file("f.txt", file);
    let r = api::patch_file(
        &json!({"file_path": "f.txt", "search": "a\r\nb\r\nc\n", "replace": "a\r\nb\nC\n",
                "match": ["line_endings", "trailing_whitespace", "indentation", "unicode_punctuation"]}),
        Some(&opts(t.path())),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&read(&t, "f.txt")), show(b"x\na \r\nb\nC\nz\n"));
}

#[test]
fn a_block_starting_with_a_line_break_does_not_match_the_end_of_a_line_with_text() {
    // A line added since the block was read (with LF, in a CRLF file) ends
    // right before the block's three blank lines: under `line_endings` its
    // LF is one of them, and the block would start at the end of it.
    let file = "class C\r\n{\r\n\r\nadded_since_read();\n\r\n\r\n        private int x;\r\n}\r\n";
    let t = with_file("c.cs", file.as_bytes());
    let r = api::patch_file(
        &json!({"file_path": "c.cs", "search": "\r\n\r\n\r\n        private int x;\r\n",
                "replace": "\r\n        private int y;\r\n",
                "match": ["line_endings", "trailing_whitespace", "indentation", "unicode_punctuation"]}),
        Some(&opts(t.path())),
    );
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(show(&read(&t, "c.cs")), show(file.as_bytes()));
}

#[test]
fn an_edit_sent_again_does_not_land_on_a_twin_at_another_depth() {
    // The edit landed (its replacement stands, twice: the commit changed
    // two places); sent again, its block matches under `indentation` a
    // third place, deeper, which the commit left alone.
    let file = "class G\r\n{\r\n    void A()\r\n    {\r\n        OnAfterGrid(index);\r\n    }\r\n    void B()\r\n    {\r\n        OnAfterGrid(index);\r\n    }\r\n    void C()\r\n    {\r\n        if (x)\r\n        {\r\n            NextResult();\r\n        }\r\n    }\r\n}\r\n";
    let t = with_file("g.cs", file.as_bytes());
    let r = api::patch_file(
        &json!({"file_path": "g.cs", "search": "    {\r\n        NextResult();\r\n",
                "replace": "    {\r\n        OnAfterGrid(index);\r\n",
                "match": ["line_endings", "trailing_whitespace", "indentation", "unicode_punctuation"]}),
        Some(&opts(t.path())),
    );
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(show(&read(&t, "g.cs")), show(file.as_bytes()));
}

const ALL: [&str; 4] = [
    "line_endings",
    "trailing_whitespace",
    "indentation",
    "unicode_punctuation",
];

#[test]
fn a_conversion_from_tabs_to_spaces_is_not_re_indented_in_the_files_style() {
    // The commit converts the method from tabs to spaces and adds lines;
    // the caller's copy is one tab deeper than the file. Under
    // `indentation` the engine would give the new lines the file's tabs
    // (its kept lines' text too), where the caller wrote spaces: which
    // style is meant cannot be known, so nothing is written.
    let file = "class C\n{\n\tvoid F()\n\t{\n\t\ta();\n\t}\n}\n";
    let t = with_file("c.cs", file.as_bytes());
    let r = api::patch_file(
        &json!({"file_path": "c.cs", "search": "\t\tvoid F()\n\t\t{\n\t\t\ta();\n\t\t}\n",
                "replace": "    void F()\n    {\n        a();\n        \n        b();\n    }\n",
                "match": ALL}),
        Some(&opts(t.path())),
    );
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(show(&read(&t, "c.cs")), show(file.as_bytes()));
}

#[test]
fn a_whitespace_only_line_of_a_re_indented_replacement_takes_the_files_indentation() {
    // The caller's copy is in tabs, the file in spaces; the replacement
    // adds a line of whitespace alone (as the commit wrote it: indented
    // like its neighbours). Re-indented, it is the file's spaces, not the
    // caller's tabs.
    let file = "class R\n{\n    void F()\n    {\n        A();\n\n        return;\n    }\n}\n";
    let t = with_file("r.cs", file.as_bytes());
    let r = api::patch_file(
        &json!({"file_path": "r.cs", "search": "\t\tA();\n\n\t\treturn;\n",
                "replace": "\t\tA();\n\t\tB();\n\t\t\n\t\treturn;\n", "match": ALL}),
        Some(&opts(t.path())),
    );
    let want = "class R\n{\n    void F()\n    {\n        A();\n        B();\n        \n        return;\n    }\n}\n";
    if r["ok"] == true {
        assert_eq!(show(&read(&t, "r.cs")), show(want.as_bytes()));
    } else {
        assert_eq!(show(&read(&t, "r.cs")), show(file.as_bytes()));
    }
    assert_eq!(r["ok"], true, "{r}");
}

#[test]
fn an_empty_line_of_a_re_indented_replacement_stays_empty() {
    // The caller's copy is dedented; its replacement turns a closing brace
    // into an empty line (a public project's commit). Paired with the
    // brace it replaces, the empty line was given the brace's indentation:
    // an empty line has no indentation to keep, it stays empty.
    let file = "class J\n{\n    void M()\n    {\n        if (a)\n        {\n            x();\n        }\n    }\n    int y;\n}\n";
    let t = with_file("j.cs", file.as_bytes());
    let r = api::patch_file(
        &json!({"file_path": "j.cs", "search": "    {\n        x();\n    }\n}\nint y;\n",
                "replace": "    {\n        x();\n    }\n\nint y;\n", "match": ALL}),
        Some(&opts(t.path())),
    );
    let want = "class J\n{\n    void M()\n    {\n        if (a)\n        {\n            x();\n        }\n\n    int y;\n}\n";
    if r["ok"] == true {
        assert_eq!(show(&read(&t, "j.cs")), show(want.as_bytes()));
    }
}

#[test]
fn an_edit_sent_again_whose_replacement_stands_at_the_match_is_not_applied_twice() {
    // A public project's commit moved a line 4 spaces left and dropped the
    // brace below it. Sent again, its block matches under `indentation` the
    // line it moved and the enclosing brace, and would drop that one too:
    // the region starts with the replacement exactly (which the block holds
    // only inside a deeper line, not as a line of its own).
    let landed = "class T\n{\n    void M()\n    {\n        var p = 1;\n        Assert.Null(p.Proxy);\r\n    }\n}";
    let t = with_file("t.cs", landed.as_bytes());
    let r = api::patch_file(
        &json!({"file_path": "t.cs", "search": "            Assert.Null(p.Proxy);\r\n        }\n",
                "replace": "        Assert.Null(p.Proxy);\r\n", "match": ALL}),
        Some(&opts(t.path())),
    );
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(show(&read(&t, "t.cs")), show(landed.as_bytes()));
}

#[test]
fn an_edit_sent_again_that_also_drops_a_blank_line_is_not_applied_twice() {
    // The commit dropped one of two blank lines and re-indented the
    // method's first lines (tabs to spaces; 2 spaces to 4). Sent again, its
    // block (a blank line and the lines as they were) matches under
    // `indentation` the blank line left and the lines it re-indented, and
    // would drop that blank line too: its replacement stands exactly inside
    // the region it matched, where the block as sent does not.
    for (old, new) in [("\t", "    "), ("  ", "    ")] {
        let landed = format!("class T\n{{\n{old}int x;\n\n{new}void success(Ctx context)\n{new}{{\n{new}{new}context.Write(\n{old}{old}{old}\"ok\");\n{old}}}\n}}\n");
        let t = with_file("t.cs", landed.as_bytes());
        let search =
            format!("\n{old}void success(Ctx context)\n{old}{{\n{old}{old}context.Write(\n");
        let replace =
            format!("{new}void success(Ctx context)\n{new}{{\n{new}{new}context.Write(\n");
        let r = api::patch_file(
            &json!({"file_path": "t.cs", "search": search, "replace": replace, "match": ALL}),
            Some(&opts(t.path())),
        );
        assert_eq!(r["ok"], false, "{r}");
        assert_eq!(show(&read(&t, "t.cs")), show(landed.as_bytes()));
    }
}

#[test]
fn an_edit_converting_crlf_to_lf_is_not_already_applied_by_its_crlf_form() {
    // The edit converts a CRLF file to LF (a commit of a public project's
    // history), its block's middle elided over more than the diagnosis
    // spans between an elision's parts, so the block is read as sent. The
    // replacement with CRLF line endings is the file as it is: the text the
    // edit changes, not its result.
    let members: String = (0..3000)
        .map(|i| format!("        <member name=\"T:A{i}\">\r\n            <summary>A{i}.</summary>\r\n        </member>\r\n"))
        .collect();
    let before = format!("<?xml version=\"1.0\"?>\r\n<doc>\r\n    <assembly>\r\n        <name>nunit.framework</name>\r\n    </assembly>\r\n    <members>\r\n{members}    </members>\r\n</doc>\r\n");
    assert!(before.len() > 256 << 10);
    let before = before.as_str();
    let t = with_file("f.xml", before.as_bytes());
    let search = "<?xml version=\"1.0\"?>\r\n<doc>\r\n    \u{2026}\n    </members>\r\n</doc>\r\n";
    let replace = before.replace("\r\n", "\n");
    for tolerant in [false, true] {
        let mut input = json!({"file_path": "f.xml", "search": search, "replace": replace});
        if tolerant {
            input["match"] = json!([
                "line_endings",
                "trailing_whitespace",
                "indentation",
                "unicode_punctuation"
            ]);
        }
        let r = api::patch_file(&input, Some(&opts(t.path())));
        assert_eq!(r["ok"], false, "{r}");
        assert_ne!(r["already_applied"], true, "{r}");
        assert_eq!(read(&t, "f.xml"), before.as_bytes());
    }
    // Sent again after it landed (the file in LF), it is.
    std::fs::write(t.path().join("f.xml"), &replace).unwrap();
    let r = api::patch_file(
        &json!({"file_path": "f.xml", "search": before, "replace": replace}),
        Some(&opts(t.path())),
    );
    assert_eq!(r["already_applied"], true, "{r}");
}

#[test]
fn a_blank_line_deleted_once_is_not_deleted_again_from_a_neighbour() {
    // The commit dropped a whitespace-only line above `if(viaSplit)` (a
    // public C# history); sent again, the blank line above it matches the
    // dropped one under `trailing_whitespace`, and would be dropped too.
    let search = "                \r\n                if(viaSplit)\r\n";
    let replace = "                if(viaSplit)\r\n";
    let landed = "            }\r\n\r\n                if(viaSplit)\r\n                {\r\n";
    let t = with_file("S.cs", landed.as_bytes());
    let tolerant = api::patch_file(
        &json!({"file_path": "S.cs", "search": search, "replace": replace,
                "match": ["line_endings", "trailing_whitespace", "indentation", "unicode_punctuation"]}),
        Some(&opts(t.path())),
    );
    assert_eq!(tolerant["ok"], false, "{tolerant}");
    assert_eq!(show(&read(&t, "S.cs")), show(landed.as_bytes()));
    // The first time it lands, with the same tolerances.
    let before = "            }\r\n\r\n                \r\n                if(viaSplit)\r\n                {\r\n";
    std::fs::write(t.path().join("S.cs"), before).unwrap();
    let first = api::patch_file(
        &json!({"file_path": "S.cs", "search": search, "replace": replace,
                "match": ["line_endings", "trailing_whitespace", "indentation", "unicode_punctuation"]}),
        Some(&opts(t.path())),
    );
    assert_eq!(first["ok"], true, "{first}");
    assert_eq!(show(&read(&t, "S.cs")), show(landed.as_bytes()));
}

#[test]
fn an_end_of_file_hunk_keeps_its_empty_last_context_lines() {
    // Twin blocks; the second ends the file with an empty line. Its hunk
    // shows that line (` `) before `*** End of File`: it is the file's last
    // line, not padding (a public project's appveyor.yml).
    let before = "-\r\n  build:\r\n    - build.bat\r\n\r\n  skip: true\r\n-\r\n  build:\r\n    - build.bat\r\n\r\n  skip: true\r\n\r\n";
    let t = with_file("a.yml", before.as_bytes());
    let patch = codex(
        "a.yml",
        "@@\n     - build.bat\n \n   skip: true\n+  test: off\n \n*** End of File\n",
    );
    let r = api::apply_patch(&json!(patch), Some(&opts(t.path())));
    assert_eq!(r["ok"], true, "{r}");
    let want = "-\r\n  build:\r\n    - build.bat\r\n\r\n  skip: true\r\n-\r\n  build:\r\n    - build.bat\r\n\r\n  skip: true\r\n  test: off\r\n\r\n";
    assert_eq!(show(&read(&t, "a.yml")), show(want.as_bytes()));
}

/// `patch_file` on `file` (at `f.js`) with `edit`'s fields and `options`'
/// `defaultMatch` when given: the result and the bytes written.
fn patched(file: &[u8], edit: Value, default_match: Option<Value>) -> (Value, Vec<u8>) {
    let t = with_file("f.js", file);
    let mut o = opts(t.path());
    if let Some(m) = default_match {
        o["defaultMatch"] = m;
    }
    let mut input = json!({ "file_path": "f.js" });
    input
        .as_object_mut()
        .unwrap()
        .extend(edit.as_object().unwrap().clone());
    let r = api::patch_file(&input, Some(&o));
    (r, read(&t, "f.js"))
}

/// `file` edited by `search` → `replace` at several places (`replace_all`,
/// `expected_replacements`): under `line_endings` it is `tolerant`, exact
/// it is `exact` (as sent).
fn several_places(file: &[u8], (search, replace): (&str, &str), tolerant: &[u8], exact: &[u8]) {
    for count in [
        json!({"replace_all": true}),
        json!({"expected_replacements": 2}),
    ] {
        let mut edit = json!({"search": search, "replace": replace});
        edit.as_object_mut()
            .unwrap()
            .extend(count.as_object().unwrap().clone());
        let (r, after) = patched(file, edit.clone(), Some(json!(["line_endings"])));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(show(&after), show(tolerant), "{count}");
        let (r, after) = patched(file, edit, None);
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(show(&after), show(exact), "{count}");
    }
}

/// A search copied with the file's CRLF that replaces several places:
/// under `line_endings` the replacement's LF breaks take the file's CRLF at
/// every place; exact, the replacement is written as sent.
#[test]
fn a_copied_crlf_search_replacing_several_places_keeps_the_files_endings() {
    several_places(
        b"one\r\ntwo\r\nthree\r\ntwo\r\n",
        ("two\r\n", "2\n2\n"),
        b"one\r\n2\r\n2\r\nthree\r\n2\r\n2\r\n",
        b"one\r\n2\n2\nthree\r\n2\n2\n",
    );
}

/// The same for a search without a line break (`a();` replaced by
/// `a();\nb();` everywhere, the MCP default): each place's new line is
/// CRLF, as it is when the search is found once.
#[test]
fn a_one_line_search_replacing_several_places_keeps_the_files_endings() {
    several_places(
        b"a();\r\nz();\r\na();\r\n",
        ("a();", "a();\nb();"),
        b"a();\r\nb();\r\nz();\r\na();\r\nb();\r\n",
        b"a();\nb();\r\nz();\r\na();\nb();\r\n",
    );
}

#[test]
fn new_lines_of_an_exact_one_line_match_take_the_files_endings_under_line_endings() {
    let le = || Some(json!(["line_endings"]));
    // The MCP default: an LF replacement of a search without a line break
    // lands on a CRLF file with CRLF, and says which tolerance it used.
    let (r, after) = patched(
        b"a();\r\nb();\r\n",
        json!({"search": "a();", "replace": "x();\ny();"}),
        le(),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&after), show(b"x();\r\ny();\r\nb();\r\n"));
    assert_eq!(r["matched_with"], json!(["line_endings"]), "{r}");
    // A line kept from the search keeps the file's bytes; the last line
    // break the caller sent is kept too.
    let (r, after) = patched(
        b"  a();\r\nb();\r\n",
        json!({"search": "a();", "replace": "a();\n  z();\n"}),
        le(),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&after), show(b"  a();\r\n  z();\r\n\r\nb();\r\n"));
    // The other way round: CRLF sent into an LF file.
    let (r, after) = patched(
        b"a();\nb();\n",
        json!({"search": "a();", "replace": "x();\r\ny();"}),
        le(),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&after), show(b"x();\ny();\nb();\n"));
    // Each of several edits, and the caller's own `match`.
    let (r, after) = patched(
        b"a();\r\nb();\r\n",
        json!({"edits": [{"search": "a();", "replace": "x();\ny();"},
                         {"search": "b();", "replace": "c();\nd();"}],
               "match": ["line_endings"]}),
        None,
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&after), show(b"x();\r\ny();\r\nc();\r\nd();\r\n"));
    assert_eq!(r["matched_with"], json!(["line_endings"]), "{r}");
}

#[test]
fn an_exact_one_line_match_is_written_as_sent_where_line_endings_are_not_asked_or_not_certain() {
    // Without `line_endings` the match is byte-exact and so is the write.
    let (r, after) = patched(
        b"a();\r\nb();\r\n",
        json!({"search": "a();", "replace": "x();\ny();"}),
        None,
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&after), show(b"x();\ny();\r\nb();\r\n"));
    assert!(r.get("matched_with").is_none(), "{r}");
    // Endings already the file's: nothing to adapt, nothing reported.
    let (r, after) = patched(
        b"a();\r\nb();\r\n",
        json!({"search": "a();", "replace": "x();\r\ny();"}),
        Some(json!(["line_endings"])),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&after), show(b"x();\r\ny();\r\nb();\r\n"));
    assert!(r.get("matched_with").is_none(), "{r}");
    // A file with both endings gives no one ending to take.
    let (r, after) = patched(
        b"a();\r\nb();\nc();\n",
        json!({"search": "a();", "replace": "x();\ny();"}),
        Some(json!(["line_endings"])),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&after), show(b"x();\ny();\r\nb();\nc();\n"));
}

#[test]
fn new_lines_take_the_files_endings_in_a_text_big_enough_for_one_pass() {
    // Big enough that the edits are planned in one pass when they allow it.
    let mut file = Vec::new();
    for k in 0..200_000 {
        file.extend_from_slice(format!("line{k};\r\n").as_bytes());
    }
    let (r, after) = patched(
        &file,
        json!({"edits": [{"search": "line7;", "replace": "seven;"},
                         {"search": "line9;", "replace": "nine;\nten;"},
                         {"search": "line11;", "replace": "eleven;"}]}),
        Some(json!(["line_endings"])),
    );
    assert_eq!(r["ok"], true, "{r}");
    let text = String::from_utf8(after).unwrap();
    assert!(text.contains("seven;\r\nline8;\r\nnine;\r\nten;\r\nline10;\r\neleven;\r\n"));
    assert!(!text.replace("\r\n", "").contains('\n'));
}

mod keeps_one_ending {
    //! Under `line_endings` (what the MCP server and the SDK adapters send),
    //! an edit sent with LF into a file that uses CRLF throughout leaves it
    //! CRLF throughout, whatever lines the search and replacement take, and
    //! whether the search has the file's CRLF or LF.
    use super::*;
    use proptest::prelude::*;

    fn line() -> impl Strategy<Value = String> {
        prop::sample::select(vec!["a();", "b();", "  c();", "}", "", "d", "a(); b();"])
            .prop_map(str::to_string)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]
        #[test]
        fn an_lf_edit_leaves_a_crlf_file_crlf(
            lines in prop::collection::vec(line(), 1..8),
            from in 0usize..8,
            len in 0usize..3,
            cut in 0usize..4,
            new in prop::collection::vec(line(), 0..4),
            nl in any::<bool>(),
            copied in any::<bool>(),
        ) {
            let file = lines.iter().map(|l| format!("{l}\r\n")).collect::<String>();
            // A search of whole or partial lines, joined with LF, or with
            // CRLF as copied from a read of the file (the replacement typed
            // after it with LF all the same).
            let from = from % lines.len();
            let taken = &lines[from..(from + len + 1).min(lines.len())];
            let eol = if copied { "\r\n" } else { "\n" };
            let mut search = taken.join(eol);
            if nl { search.push_str(eol); }
            let search: String = search.chars().skip(cut.min(search.chars().count().saturating_sub(1))).collect();
            if search.trim().is_empty() {
                return Ok(());
            }
            let mut replace = new.join("\n");
            if nl && !replace.is_empty() { replace.push('\n'); }
            let (r, after) = patched(
                file.as_bytes(),
                json!({"search": search, "replace": replace}),
                Some(json!(["line_endings"])),
            );
            let after = String::from_utf8(after).unwrap();
            if r["ok"] == true && copied && search.matches("\r\n").count() == lines.len() {
                // Every line break of the file, copied and sent back with
                // LF: converted (one kind throughout).
                prop_assert!(!after.contains('\r'), "{file:?} {search:?} {replace:?} -> {after:?}");
            } else if r["ok"] == true {
                prop_assert!(!after.replace("\r\n", "").contains(['\n', '\r']), "{file:?} {search:?} {replace:?} -> {after:?}");
            } else {
                prop_assert_eq!(&after, &file);
            }
        }
    }
}

#[test]
fn a_file_without_line_breaks_or_with_both_takes_the_replacement_as_sent() {
    // A real edit (Newtonsoft.Json `c7facae78`, `Build/runbuild.cmd`): a
    // one-line file without a line break gains a CRLF line.
    for (file, replace) in [
        (&b"powershell x"[..], "powershell x\r\npause"),
        (&b"a();\nb();\r\n"[..], "a();\r\nz();"),
    ] {
        let (r, after) = patched(
            file,
            json!({"search": std::str::from_utf8(&file[..4]).unwrap(), "replace": replace}),
            Some(json!(["line_endings"])),
        );
        assert_eq!(r["ok"], true, "{r}");
        let want = [replace.as_bytes(), &file[4..]].concat();
        assert_eq!(show(&after), show(&want));
    }
}

#[test]
fn a_tolerant_match_never_joins_the_next_line_either() {
    // Found under `line_endings` (LF sent for CRLF), the last break left
    // out of the replacement: line 3 would be joined to it.
    let file = b"a();\r\nb();\r\nc();\r\n";
    let (r, after) = patched(
        file,
        json!({"search": "b();\n", "replace": "x();"}),
        Some(json!(["line_endings"])),
    );
    assert_eq!(r["code"], "PLAN_CHECK_FAILED", "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("line 3 would be joined"),
        "{r}"
    );
    assert_eq!(show(&after), show(file));
    let (r, after) = patched(
        file,
        json!({"search": "b();\n", "replace": "x();\n"}),
        Some(json!(["line_endings"])),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&after), show(b"a();\r\nx();\r\nc();\r\n"));
}

/// The warnings of a result that say a file lost its final line break.
fn lost_break(r: &Value) -> Vec<String> {
    r["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|w| w.contains("no longer ends with a line break"))
        .map(str::to_string)
        .collect()
}

/// A write that takes away the line break a file ended with is written as
/// sent (real history has such changes) and says so, in every format and
/// in a dry run; a file that had none, a new file, an emptied file and a
/// last line that keeps its break say nothing. UTF-16 files are read by
/// code unit.
#[test]
fn a_file_that_loses_its_final_line_break_is_told() {
    let t = with_file("f.js", b"a();\nb();\n");
    let o = opts(t.path());
    let eof = json!({"file_path": "f.js", "search_block": "b();\n", "replace_block": "x();"});
    let mut dry = eof.clone();
    dry["dry_run"] = json!(true);
    let r = api::patch_file(&dry, Some(&o));
    assert_eq!(lost_break(&r), ["`f.js` no longer ends with a line break (the new text's last line has none); if that was not meant, end the new text with one"], "{r}");
    assert_eq!(
        read(&t, "f.js"),
        b"a();\nb();\n",
        "a dry run writes nothing"
    );
    let r = api::patch_file(&eof, Some(&o));
    assert_eq!(
        (r["ok"].as_bool(), lost_break(&r).len()),
        (Some(true), 1),
        "{r}"
    );
    assert_eq!(read(&t, "f.js"), b"a();\nx();");
    // It had none: nothing to say.
    let r = api::patch_file(
        &json!({"file_path": "f.js", "search_block": "x();", "replace_block": "y();"}),
        Some(&o),
    );
    assert!(r["ok"] == true && lost_break(&r).is_empty(), "{r}");
    let cases: [(&str, &[u8], Value, bool); 6] = [
        (
            "w.txt",
            b"a\n",
            json!({"entry": "writeFile", "file_path": "w.txt", "content": "a\nb"}),
            true,
        ),
        (
            "w.txt",
            b"a\n",
            json!({"entry": "writeFile", "file_path": "w.txt", "content": "a\nb\n"}),
            false,
        ),
        (
            "w.txt",
            b"a\n",
            json!({"entry": "writeFile", "file_path": "w.txt", "content": ""}),
            false,
        ),
        (
            "n.txt",
            b"",
            json!({"entry": "writeFile", "file_path": "new.txt", "content": "a"}),
            false,
        ),
        (
            "c.js",
            b"a();\nb();\n",
            json!({"entry": "applyPatch", "patch": "*** Begin Patch\n*** Update File: c.js\n@@\n a();\n-b();\n+x();\n*** End of File\n*** End Patch\n"}),
            false,
        ),
        (
            "e.js",
            b"a();\nb();\n",
            json!({"entry": "textEditor", "command": "str_replace", "path": "e.js", "old_str": "b();\n", "new_str": "x();"}),
            true,
        ),
    ];
    for (name, before, mut input, says) in cases {
        let t = with_file(name, before);
        let entry = input.as_object_mut().unwrap().remove("entry").unwrap();
        let o = opts(t.path());
        let r = match entry.as_str().unwrap() {
            "writeFile" => api::write_file(&input, Some(&o)),
            "applyPatch" => api::apply_patch(&input, Some(&o)),
            _ => api::text_editor(&input, Some(&o)),
        };
        assert_eq!(r["ok"], true, "{input}: {r}");
        assert_eq!(lost_break(&r).len(), usize::from(says), "{input}: {r}");
    }
    // UTF-16: the last code unit, in either byte order.
    for le in [true, false] {
        let enc = |s: &str| -> Vec<u8> {
            let units = s.encode_utf16();
            let mut b = if le {
                vec![0xFF, 0xFE]
            } else {
                vec![0xFE, 0xFF]
            };
            for u in units {
                b.extend(if le { u.to_le_bytes() } else { u.to_be_bytes() });
            }
            b
        };
        let t = with_file("u.txt", &enc("a\n\u{a0a}\n"));
        let r = api::patch_file(
            &json!({"file_path": "u.txt", "search_block": "\u{a0a}\n", "replace_block": "\u{a0a}"}),
            Some(&opts(t.path())),
        );
        assert_eq!(
            (r["ok"].as_bool(), lost_break(&r).len()),
            (Some(true), 1),
            "{r}"
        );
        assert_eq!(read(&t, "u.txt"), enc("a\n\u{a0a}"));
        let r = api::patch_file(
            &json!({"file_path": "u.txt", "search_block": "a\n", "replace_block": "b\n"}),
            Some(&opts(t.path())),
        );
        assert!(lost_break(&r).is_empty(), "it had none: {r}");
        // Written over in UTF-8: the new bytes are read as UTF-8.
        for (content, says) in [("abc\n", 0), ("abc", 1)] {
            let t = with_file("u.txt", &enc("a\n"));
            let input = json!({"file_path": "u.txt", "content": content, "encoding": "utf-8"});
            let r = api::write_file(&input, Some(&opts(t.path())));
            assert_eq!(
                (r["ok"].as_bool(), lost_break(&r).len()),
                (Some(true), says),
                "{r}"
            );
            assert_eq!(read(&t, "u.txt"), content.as_bytes());
        }
    }
}

/// A file whose last line ends with a lone CR (`c\r`, no LF): a line added
/// after it makes that CR a CRLF, through every entry point that appends,
/// instead of writing a second CR (`c\r\r\nd`).
#[test]
fn a_line_added_after_a_last_lone_cr_completes_its_crlf() {
    let file = b"a\r\nb\r\nc\r";
    let want = b"a\r\nb\r\nc\r\nd";
    let anchors = |t: &tempfile::TempDir| -> Vec<String> {
        let r = api::read_file(
            &json!({"file_path": "f.txt", "anchors": true}),
            Some(&opts(t.path())),
        );
        let content = r["content"].as_str().unwrap().to_string();
        content
            .lines()
            .filter_map(|l| l.split_once('|').map(|(a, _)| a.to_string()))
            .collect()
    };
    type Run<'a> = Box<dyn Fn(&tempfile::TempDir) -> Value + 'a>;
    let runs: Vec<(&str, Run)> = vec![
        (
            "editLines",
            Box::new(|t| {
                let a = anchors(t);
                api::edit_lines(
                    &json!({"file_path": "f.txt", "edits": [{"op": "append", "pos": a[2], "lines": ["d"]}]}),
                    Some(&opts(t.path())),
                )
            }),
        ),
        (
            "text editor insert",
            Box::new(|t| {
                api::text_editor(
                    &json!({"command": "insert", "path": "f.txt", "insert_line": 3, "insert_text": "d"}),
                    Some(&opts(t.path())),
                )
            }),
        ),
        (
            "unified diff -U0",
            Box::new(|t| {
                api::apply_patch(
                    &json!("--- a/f.txt\n+++ b/f.txt\n@@ -3,0 +4 @@\n+d\n\\ No newline at end of file\n"),
                    Some(&opts(t.path())),
                )
            }),
        ),
    ];
    for (name, run) in runs {
        let t = with_file("f.txt", file);
        let r = run(&t);
        assert_eq!(r["ok"], true, "{name}: {r}");
        assert_eq!(show(&read(&t, "f.txt")), show(want), "{name}");
    }
}

/// A one-line search found exactly in a CRLF file, its replacement typed
/// with LF, under `line_endings` and `indentation`: only the breaks are
/// read tolerantly (made CRLF); the new line's indentation is the caller's.
/// It was indented a level deeper (the search's column 0 read as the
/// line's depth): an IndentationError in Python, two tabs in a Makefile.
#[test]
fn an_exact_one_line_search_keeps_the_replacements_indentation_under_indentation() {
    for (name, file, search, replace, want) in [
        (
            "a.py",
            "def f():\r\n    x = 1\r\n    return x\r\n",
            "x = 1",
            "x = 1\n    y = 2",
            "def f():\r\n    x = 1\r\n    y = 2\r\n    return x\r\n",
        ),
        (
            "Makefile",
            "all:\r\n\tgcc a.c\r\n",
            "gcc a.c",
            "gcc a.c\n\tstrip a.out",
            "all:\r\n\tgcc a.c\r\n\tstrip a.out\r\n",
        ),
    ] {
        for m in [
            json!(["line_endings", "indentation"]),
            json!([
                "line_endings",
                "trailing_whitespace",
                "indentation",
                "unicode_punctuation"
            ]),
        ] {
            let t = with_file(name, file.as_bytes());
            let r = api::patch_file(
                &json!({"file_path": name, "search_block": search, "replace_block": replace, "match": m}),
                Some(&opts(t.path())),
            );
            assert_eq!(r["ok"], true, "{name}: {r}");
            assert_eq!(show(&read(&t, name)), show(want.as_bytes()), "{name} {m}");
            assert_eq!(
                r["edits"][0]["matched_with"],
                json!(["line_endings"]),
                "{r}"
            );
        }
    }
}

/// editLines with a CR inside a line (`x\ry`): no line break the file uses,
/// refused with INVALID_INPUT instead of written as a lone CR; a CR before
/// a line's LF (`x\r\n`) is that line's break, as before.
#[test]
fn edit_lines_refuses_a_lone_cr_inside_a_line() {
    let t = with_file("f.txt", b"a\nb\n");
    let r = api::read_file(
        &json!({"file_path": "f.txt", "anchors": true}),
        Some(&opts(t.path())),
    );
    let first = r["content"]
        .as_str()
        .unwrap()
        .split('|')
        .next()
        .unwrap()
        .to_string();
    for lines in [json!(["x\ry"]), json!("x\ry\n")] {
        let r = api::edit_lines(
            &json!({"file_path": "f.txt", "edits": [{"pos": first, "lines": lines}]}),
            Some(&opts(t.path())),
        );
        assert_eq!(r["code"], "INVALID_INPUT", "{r}");
        assert!(r["message"].as_str().unwrap().contains("lone CR"), "{r}");
        assert_eq!(read(&t, "f.txt"), b"a\nb\n");
    }
    let r = api::edit_lines(
        &json!({"file_path": "f.txt", "edits": [{"pos": first, "lines": "x\r\n"}]}),
        Some(&opts(t.path())),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&t, "f.txt"), b"x\nb\n");
}

/// A file whose lines end with a lone CR (classic Mac OS) keeps them
/// through every entry point: read with LF breaks (reported `cr`), matched
/// with LF, every line break written a CR. It was one line to every
/// format: LF lines were written into it, an append got `\r\n`, and a
/// marker in it was never seen.
#[test]
fn a_file_of_lone_cr_breaks_keeps_them_through_every_entry_point() {
    let before = b"a\rb\rc\r";
    type Call = Box<dyn Fn(&Value) -> Value>;
    let calls: Vec<(&str, Call, &[u8])> = vec![
        (
            "patchFile",
            Box::new(|o| {
                api::patch_file(
                    &json!({"file_path": "f.txt", "search_block": "a\nb\n", "replace_block": "A\nB\nX\n"}),
                    Some(o),
                )
            }),
            b"A\rB\rX\rc\r",
        ),
        (
            "patchFile, a CRLF replacement",
            Box::new(|o| {
                api::patch_file(
                    &json!({"file_path": "f.txt", "search_block": "b", "replace_block": "B\r\nY"}),
                    Some(o),
                )
            }),
            b"a\rB\rY\rc\r",
        ),
        (
            "patchFile, the file's own bytes",
            Box::new(|o| {
                api::patch_file(
                    &json!({"file_path": "f.txt", "search_block": "a\rb\r", "replace_block": "A\rB\r"}),
                    Some(o),
                )
            }),
            b"A\rB\rc\r",
        ),
        (
            "batchPatchFiles, the file's own bytes",
            Box::new(|o| {
                api::batch_patch_files(
                    &json!({"files": [{"file_path": "f.txt", "search_block": "b\rc", "replace_block": "B\rC"}]}),
                    Some(o),
                )
            }),
            b"a\rB\rC\r",
        ),
        (
            "writeFile",
            Box::new(|o| {
                api::write_file(
                    &json!({"file_path": "f.txt", "content": "a\nb\nc\nd\n"}),
                    Some(o),
                )
            }),
            b"a\rb\rc\rd\r",
        ),
        (
            "Codex patch",
            Box::new(|o| {
                api::apply_patch(&json!("*** Begin Patch\n*** Update File: f.txt\n@@\n a\n-b\n+B\n+Z\n c\n*** End Patch\n"), Some(o))
            }),
            b"a\rB\rZ\rc\r",
        ),
        (
            "unified diff",
            Box::new(|o| {
                api::apply_patch(
                    &json!("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n+Z\n c\n"),
                    Some(o),
                )
            }),
            b"a\rB\rZ\rc\r",
        ),
        (
            "edit blocks",
            Box::new(|o| {
                api::apply_edit_blocks(
                    &json!("f.txt\n<<<<<<< SEARCH\nb\n=======\nB\nY\n>>>>>>> REPLACE\n"),
                    Some(o),
                )
            }),
            b"a\rB\rY\rc\r",
        ),
        (
            "text editor insert",
            Box::new(|o| {
                api::text_editor(
                    &json!({"command": "insert", "path": "f.txt", "insert_line": 1, "new_str": "N\nM"}),
                    Some(o),
                )
            }),
            b"a\rN\rM\rb\rc\r",
        ),
        (
            "editLines append",
            Box::new(|o| {
                api::edit_lines(
                    &json!({"file_path": "f.txt", "edits": [{"op": "append", "lines": ["d", "e"]}]}),
                    Some(o),
                )
            }),
            b"a\rb\rc\rd\re\r",
        ),
    ];
    for (name, call, after) in calls {
        let t = with_file("f.txt", before);
        let r = call(&opts(t.path()));
        assert_eq!(r["ok"], true, "{name}: {r}");
        assert_eq!(show(&read(&t, "f.txt")), show(after), "{name}");
    }
    // A dry run's diff shows the lines changed, not the file removed.
    let t = with_file("f.txt", before);
    let r = api::apply_patch(
        &json!({"patch": "*** Begin Patch\n*** Update File: f.txt\n@@\n a\n-b\n+B\n c\n*** End Patch\n", "dry_run": true}),
        Some(&opts(t.path())),
    );
    let diff = r["diff"].as_str().unwrap_or_default();
    assert!(
        diff.contains("-b\n+B\n") && !diff.contains("/dev/null"),
        "{r}"
    );
    // A caller's CR at the end of its text is a break of its own, as
    // patchFile reads it.
    for (name, r) in [
        (
            "textEditor",
            api::text_editor(
                &json!({"command": "str_replace", "path": "f.txt", "old_str": "a", "new_str": "A\r"}),
                Some(&opts(t.path())),
            ),
        ),
        (
            "patchFile",
            api::patch_file(
                &json!({"file_path": "f.txt", "search_block": "A\r\r", "replace_block": "a\r"}),
                Some(&opts(t.path())),
            ),
        ),
    ] {
        assert_eq!(r["ok"], true, "{name}: {r}");
    }
    assert_eq!(show(&read(&t, "f.txt")), show(before));
    // A read says so, and shows LF.
    let t = with_file("f.txt", before);
    let r = api::read_file(&json!({"file_path": "f.txt"}), Some(&opts(t.path())));
    assert_eq!(r["content"], "a\nb\nc\n", "{r}");
    assert_eq!(r["line_ending"], "cr", "{r}");
    assert_eq!(r["total_lines"], 3, "{r}");
    assert!(r["warning"].as_str().unwrap().contains("lone CR"), "{r}");
    // A marker in it stands for the lines it hides.
    let src = b"fn f() {\r    one();\r    two();\r    three();\r}\r";
    let t = with_file("m.rs", src);
    let r = api::write_file(
        &json!({"file_path": "m.rs", "content": "fn f() {\n    one();\n    // ... existing code ...\n    three();\n    four();\n}\n"}),
        Some(&opts(t.path())),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        show(&read(&t, "m.rs")),
        show(b"fn f() {\r    one();\r    two();\r    three();\r    four();\r}\r")
    );
    // Written as sent, line breaks and all, when asked.
    let t = with_file("f.txt", before);
    let r = api::write_file(
        &json!({"file_path": "f.txt", "content": "a\nb\n", "line_endings": "as_sent"}),
        Some(&opts(t.path())),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(show(&read(&t, "f.txt")), show(b"a\nb\n"));
}

/// Lone CR breaks are read as breaks in every encoding the engine reads,
/// not only in UTF-8 without a BOM: a classic Mac OS file is as often Mac
/// Roman or windows-1252 (read as a legacy encoding), or UTF-8 with a BOM,
/// or UTF-16. Each was one line to every format: a replacement's LF was
/// written into it as it was (`b\nX` among CRs), a text-editor insert after
/// line 1 landed at the end of the file, and `writeFile` flipped every
/// break to LF.
#[test]
fn a_file_of_lone_cr_breaks_keeps_them_in_every_encoding() {
    type Enc = fn(&str) -> Vec<u8>;
    let forms: [(&str, Enc); 5] = [
        ("utf-8", |s| s.as_bytes().to_vec()),
        ("utf-8", |s| {
            [b"\xEF\xBB\xBF".as_slice(), s.as_bytes()].concat()
        }),
        ("utf-16le", |s| {
            let mut v = vec![0xFF, 0xFE];
            v.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
            v
        }),
        ("utf-16be", |s| {
            let mut v = vec![0xFE, 0xFF];
            v.extend(s.encode_utf16().flat_map(u16::to_be_bytes));
            v
        }),
        ("windows-1252", |s| {
            encoding_rs::WINDOWS_1252.encode(s).0.into_owned()
        }),
    ];
    let before = "café\rb\rc\r";
    type Call = Box<dyn Fn(&Value) -> Value>;
    let calls: Vec<(&str, Call, &str)> = vec![
        (
            "patchFile, a line added",
            Box::new(|o| {
                api::patch_file(
                    &json!({"file_path": "f.txt", "search_block": "b", "replace_block": "b\nX"}),
                    Some(o),
                )
            }),
            "café\rb\rX\rc\r",
        ),
        (
            "patchFile, lines of the file",
            Box::new(|o| {
                api::patch_file(
                    &json!({"file_path": "f.txt", "search_block": "café\nb\n", "replace_block": "A\nB\r\nY\n"}),
                    Some(o),
                )
            }),
            "A\rB\rY\rc\r",
        ),
        (
            "writeFile",
            Box::new(|o| {
                api::write_file(
                    &json!({"file_path": "f.txt", "content": "café\nb\nc\nd\n"}),
                    Some(o),
                )
            }),
            "café\rb\rc\rd\r",
        ),
        (
            "Codex patch",
            Box::new(|o| {
                api::apply_patch(&json!("*** Begin Patch\n*** Update File: f.txt\n@@\n café\n-b\n+B\n+Z\n c\n*** End Patch\n"), Some(o))
            }),
            "café\rB\rZ\rc\r",
        ),
        (
            "unified diff",
            Box::new(|o| {
                api::apply_patch(
                    &json!("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n café\n-b\n+B\n+Z\n c\n"),
                    Some(o),
                )
            }),
            "café\rB\rZ\rc\r",
        ),
        (
            "edit blocks",
            Box::new(|o| {
                api::apply_edit_blocks(
                    &json!("f.txt\n<<<<<<< SEARCH\nb\n=======\nB\nY\n>>>>>>> REPLACE\n"),
                    Some(o),
                )
            }),
            "café\rB\rY\rc\r",
        ),
        (
            "text editor insert",
            Box::new(|o| {
                api::text_editor(
                    &json!({"command": "insert", "path": "f.txt", "insert_line": 1, "new_str": "N\nM"}),
                    Some(o),
                )
            }),
            "café\rN\rM\rb\rc\r",
        ),
        (
            "editLines append",
            Box::new(|o| {
                api::edit_lines(
                    &json!({"file_path": "f.txt", "edits": [{"op": "append", "lines": ["d", "e"]}]}),
                    Some(o),
                )
            }),
            "café\rb\rc\rd\re\r",
        ),
    ];
    for (k, (name, enc)) in forms.iter().enumerate() {
        let t = with_file("f.txt", &enc(before));
        let r = api::read_file(&json!({"file_path": "f.txt"}), Some(&opts(t.path())));
        assert_eq!(r["content"], "café\nb\nc\n", "form {k}: {r}");
        assert_eq!(r["line_ending"], "cr", "form {k}: {r}");
        assert_eq!(r["encoding"], *name, "form {k}: {r}");
        assert_eq!(r["bom"], k == 1 || k == 2 || k == 3, "form {k}: {r}");
        for (call_name, call, after) in &calls {
            let writes = *call_name != "writeFile" || k != 4;
            let t = with_file("f.txt", &enc(before));
            let r = call(&opts(t.path()));
            if !writes {
                // A whole text over a legacy file is refused unless its
                // encoding is named (a model sends UTF-8).
                assert_eq!(r["ok"], false, "form {k}, {call_name}: {r}");
                continue;
            }
            assert_eq!(r["ok"], true, "form {k}, {call_name}: {r}");
            assert_eq!(
                show(&read(&t, "f.txt")),
                show(&enc(after)),
                "form {k}, {call_name}"
            );
        }
        // Written in another encoding, on request: the breaks stay CRs.
        let t = with_file("f.txt", &enc(before));
        let r = api::write_file(
            &json!({"file_path": "f.txt", "content": "café\nb\n", "encoding": "utf-8"}),
            Some(&opts(t.path())),
        );
        assert_eq!(r["ok"], true, "form {k}: {r}");
        let bom: &[u8] = if k == 1 { b"\xEF\xBB\xBF" } else { b"" };
        assert_eq!(
            show(&read(&t, "f.txt")),
            show(&[bom, "café\rb\r".as_bytes()].concat()),
            "form {k}"
        );
    }
}

/// A whole text sent with the file's own lone CR breaks is read line by
/// line as the file is: a marker in it stands for the lines it hides. It
/// was one line to the elision check, written as it was, the lines the
/// marker stood for deleted.
#[test]
fn a_whole_text_with_lone_cr_breaks_has_its_markers_read() {
    let src = b"def load(cfg):\r    a = parse(cfg.alpha)\r    b = parse(cfg.beta)\r    validate(a, b)\r    return merge(a, b)\r";
    let t = with_file("a.py", src);
    let r = api::write_file(
        &json!({"file_path": "a.py", "content": "def load(cfg):\r    a = parse(cfg.alpha)\r    # ... existing code ...\r    return merge(a, b)\r\r\rdef extra():\r    return 1\r"}),
        Some(&opts(t.path())),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        show(&read(&t, "a.py")),
        show(b"def load(cfg):\r    a = parse(cfg.alpha)\r    b = parse(cfg.beta)\r    validate(a, b)\r    return merge(a, b)\r\r\rdef extra():\r    return 1\r")
    );
}

/// The text editor's insert into a file of both breaks wrote LF between
/// CRLF lines: the lines inserted take the break of the line they follow
/// (at the top, the first line's), as editLines does.
#[test]
fn an_insert_into_a_mixed_file_takes_the_break_of_the_line_it_follows() {
    let text = b"line1\r\nline2\r\nline3\r\nline4\nlast\n";
    for (after, want) in [
        (
            2,
            &b"line1\r\nline2\r\nNEW\r\nTWO\r\nline3\r\nline4\nlast\n"[..],
        ),
        (
            4,
            &b"line1\r\nline2\r\nline3\r\nline4\nNEW\nTWO\nlast\n"[..],
        ),
        (
            0,
            &b"NEW\r\nTWO\r\nline1\r\nline2\r\nline3\r\nline4\nlast\n"[..],
        ),
    ] {
        let t = with_file("m.txt", text);
        let r = api::text_editor(
            &json!({"command": "insert", "path": "m.txt", "insert_line": after, "new_str": "NEW\nTWO"}),
            Some(&opts(t.path())),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(show(&read(&t, "m.txt")), show(want), "after line {after}");
    }
}

/// In a file of mixed endings, a hunk that removes a line and adds it again
/// unchanged (`-q` `+q`, typed with LF over a CRLF line) beside a new line:
/// the line written again keeps the file's ending, and the new line the
/// patch's. It was refused as a plan that failed its check
/// (`PLAN_CHECK_FAILED`), which a retry repeats.
#[test]
fn a_line_written_again_unchanged_in_a_mixed_file_keeps_its_ending() {
    let file = b"a\nb\r\nq\r\nc\n";
    let want = b"a\nb\r\nq\r\ny\nc\n";
    let patches = [
        codex("f.txt", "@@\n b\n-q\n+q\n+y\n"),
        "--- a/f.txt\n+++ b/f.txt\n@@ -2,2 +2,3 @@\n b\n-q\n+q\n+y\n".to_string(),
    ];
    for patch in patches {
        let t = with_file("f.txt", file);
        let r = api::apply_patch(&json!({ "patch": patch }), Some(&opts(t.path())));
        assert_eq!(r["ok"], true, "{patch}: {r}");
        assert_eq!(show(&read(&t, "f.txt")), show(want), "{patch}");
    }
}
