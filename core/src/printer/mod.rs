//! The printer: the sentences an agent reads, made from facts. A check, a
//! match or a write says *what* happened (which marker, which lines, which
//! parse error, which spelling the caller used) as values; the words, and
//! the published detail that goes with them, are made here, in one place,
//! so a message is changed, checked for tone and measured for tokens where
//! the others are.
//!
//! It sits low in the stack (above `check`, whose verdicts it words, and
//! the vocabulary; below `diagnose`, `matching`, `io` and everything over
//! them), so that every layer that meets a failure names its facts and calls
//! it, instead of carrying them up to a layer that may word them.
//!
//! No other production code formats words or builds a failure from a
//! string literal: `core/tests/suite/structure.rs` fails on a `format!`
//! outside the printer that no `// data:` comment declares data
//! (`no_words_are_formatted_outside_the_printer`) and on a
//! `Failure::invalid("...")` or `Failure::new(code, "...")` there
//! (`no_failure_is_worded_with_a_literal_outside_the_printer`). Short
//! fixed phrases handed to the printer as facts (what a parser expected,
//! the name of a JSON kind or of a line ending) stay where they are
//! decided. Here: the refusals of the checks on new text ([`check`]), the
//! failures of file operations ([`ops`]), the pipeline's own failures
//! ([`writes`]), the journal's and its store's ([`journal`]), the input
//! adapter's refusals of a request's fields ([`fields`]), what
//! a read tells and the text editor's refusals ([`reads`]), the parse
//! errors of blocks, diffs and Codex patches ([`formats`]), the refusals of
//! a text editor command object ([`commands`]), the requests' `INVALID_INPUT`
//! messages ([`request`]), the addon's values that are not JSON ([`js`]),
//! the near-miss diagnosis: the closest match, its differences, an edit
//! already applied ([`diagnosis`]),
//! what the disk layer tells about files and paths: the sandbox, the read
//! path and the commit ([`disk`]),
//! the failures of edits and blocks that did not land ([`misses`]) and of
//! patch hunks ([`hunks`]), what is said of a file not in plain UTF-8
//! ([`encodings`]).

mod check;
mod commands;
mod diagnosis;
mod disk;
mod encodings;
mod fields;
mod formats;
mod hunks;
mod journal;
pub mod js;
mod misses;
mod ops;
mod quote;
mod reads;
mod request;
mod writes;

pub(crate) use self::check::{refused, Worded};
pub(crate) use self::commands::{
    command_missing, command_not_object, insert_line_missing, insert_text_missing, not_a_boolean,
    not_a_parameter, not_a_string, not_a_uint, not_parameters, old_str_empty, path_empty,
    required_for, same_parameter_twice, unknown_command, view_range_invalid, view_range_not_array,
};
pub(crate) use self::diagnosis::{
    applied_summary, case_differs, closest_summary, content_differs, escaped_twice,
    fewer_backslashes, indented_differently, invisible_differs, invisible_in_block,
    invisible_in_file, leaves_lines_out, line_endings_differ, line_number_prefixes,
    more_backslashes, not_found_applied, not_found_content, not_found_formatting,
    not_found_too_large, punctuation_differs, trailing_differently, typographic_in_block,
    typographic_in_file, Near,
};
#[cfg(any(test, feature = "fault-injection"))]
pub(crate) use self::disk::injected_fault;
pub(crate) use self::disk::{
    attributes_lost, backslash, cannot_read, cannot_write, changed_while_editing, data_stream,
    directory_not_flushed, dot_or_space_end, file_path_empty, is_directory, lock_held,
    lock_held_on_read, names_directory, nested_too_deep, no_memory_to_read, no_such_file,
    not_regular_file, outside_workspace, owned_by_other, parent_is_file, parent_missing,
    parent_uncreated, path_has_nul, path_too_long, path_unreadable, record_damaged, record_held,
    record_outdated, reserved_device, restored_then_written, root_not_directory, root_unopened,
    state_not_used, too_large_unread, too_many_links, torn_read, unopened_retry, up_from_missing,
};
pub(crate) use self::encodings::{
    beside_non_ascii, looks_binary, malformed_utf16, no_round_trip, splits_a_character,
    splits_utf8_character, unencodable,
};
pub(crate) use self::fields::{
    field_fault, field_required, field_wrong_type, input_missing, input_not_object, sent_value,
    spelt_twice, unknown_fields, unknown_listed,
};
pub(crate) use self::formats::{
    block_end_expected, created_only_adds, deleted_only_removes, empty_search_not_first,
    header_after_delete, hunk_line_expected, hunk_no_lines, hunk_overfull, in_operation_diff,
    no_block_path, no_hunks, parse_other, parse_unexpected, path_after, plus_line_expected,
    plus_line_or_header_expected, search_end_expected, update_file_no_hunks, update_no_hunks,
};
pub(crate) use self::hunks::{
    addition_misplaced, anchor_ambiguous, anchor_not_found, hunk_ambiguous, hunk_failed_check,
    hunk_label, hunk_not_ascii, hunk_not_found, shifted_line,
};
pub(crate) use self::journal::{
    all_undone, already_undone, change_over_journal, changed_since, changed_since_written,
    content_changed, damaged_entry, damaged_refused, entry_unreadable, file_flaw,
    file_over_journal, foreign_header, id_mismatch, ids_shared, journal_step, journal_unlisted,
    journal_unopened, journal_unusable, kept_missing, kept_replaced, lacks_previous,
    longer_than_written, names_twice, no_journal_no_state_dir, no_transaction, not_an_id,
    not_journaled, not_undoable, nothing_to_undo, other_version, path_not_utf8, saved_over_limit,
    undo_stops_at, undone_by, wrong_length, FileFlaw,
};
pub(crate) use self::misses::{
    added_break_missing, adds_break_not_last, applied_elsewhere, applied_inside,
    block_failed_check, blocks_too_large, change_out_of_bounds, converts_indentation,
    count_mismatch, deleted_blank_elsewhere, edit_ambiguous, edit_not_ascii, edit_not_found,
    edit_out_of_memory, edit_prefix, ending_not_used, fitted_failed_check, indented_left_of_file,
    indented_like_several, indented_like_stripped_first, indented_part_of_step,
    indented_relative_to_several, kept_line_differs, line_count_differs, line_end_differs,
    line_not_callers, line_span, lone_cr_written, not_checked_after, not_found_tolerant_either,
    own_replacement, repeats_line_inside, replacement_line_unplaced, rival, takes_break_mid_line,
    takes_break_none, takes_break_writes, tolerances_not_applied, tolerant_ambiguous,
    tolerant_uncertain, tolerant_would_find, too_little_text, unique_context_hint_given,
};
pub(crate) use self::ops::{
    block_failed, blocks_failed, bom_hunk_not_first, exists_create_only, holds_more_than_deleted,
    hunks_failed, insert_failed_check, insert_not_ascii, insert_past_end, operations_failed,
    rename_onto_existing, replacement_not_read_back, same_file_twice, through_link,
    too_large_to_allocate, BlockMiss,
};
pub(crate) use self::quote::shown;
pub(crate) use self::reads::{
    cannot_open, internal_error, legacy, line_too_long, not_utf8, over_max_file_bytes, read_cut,
    undo_edit_journal_off, undo_edit_nothing, view_past_end, view_range_on_directory, EmbeddedUtf8,
};
pub(crate) use self::request::{
    bad_match, count_and_all, count_zero, dry_run_both_differ, dry_run_spellings_differ,
    dry_run_ttl_out_of_range, edit_file_edits_missing, edit_file_edits_not_array, edit_file_item,
    edit_file_not_object, edit_file_path_missing, edit_file_unknown, edits_and_pair, edits_empty,
    edits_not_array, encoding_not_utf8, end_before_pos, end_for_replace_only, files_empty,
    files_missing, files_not_array, history_limit_zero, item_label, journal_dir_invalid,
    journal_option_kind, line_edits_count, line_edits_kind, line_endings_not_as_sent, line_op,
    lines_item_kind, lines_kind, lock_wait_over, no_current_directory, not_a_choice, not_an_anchor,
    not_boolean, not_string, nothing_to_insert, operation_move_not_update, operation_needs_diff,
    operation_path_empty, operation_type, read_limit_zero, replace_missing, replace_needs_pos,
    search_empty, search_missing, text_input_shape, text_missing, text_twice, text_unknown_field,
    too_many_edits, too_many_files, under, undo_id_kind, workspace_root_empty, workspace_root_nul,
};
pub(crate) use self::writes::{
    anchored_overlap, anchors_mismatch, batch_failed, batch_same_file, cancelled,
    changed_after_dry_run, changed_since_read, commit_aftermath, created_meanwhile, diff_omitted,
    dry_run_not_kept, edits_failed, go_on, hard_linked, interrupted_write, locked, missing,
    not_expected_sha, run_id_other_root, run_id_unknown, write_over_bytes, write_over_legacy,
};
