// Types of patch-file-tool/anthropic (ES modules; anthropic.d.ts is the same for CommonJS).
import type { ToolResultBlockParam, ToolTextEditor20250728, ToolUseBlockParam } from '@anthropic-ai/sdk/resources/messages'
import type { AdapterResultsView, FormatOptions, TextEditorCommand, TextEditorResult } from '../../index.js'

/** The engine's options plus the text editor tool's `max_characters`. */
export interface TextEditorOptions extends FormatOptions {
  /** Sent as the tool's `max_characters`; a view is truncated to it. A positive integer. */
  maxCharacters?: number
}

/** The editor made with options `O`: `run` resolves to the compact view unless `O` says `results: 'full'`. */
export interface TextEditor<O = TextEditorOptions> {
  /** The tool definition for `messages.create({ tools })`: text_editor_20250728, str_replace_based_edit_tool. */
  readonly tool: ToolTextEditor20250728
  /**
   * Runs a command (view, create, str_replace, insert) with the engine; resolves to its result, never rejects.
   * The result is in the compact view (`Compact<TextEditorResult>`: an edit's `path` may be left out)
   * unless the options say `results: 'full'` as a literal type (AdapterResultsView).
   */
  run(input: TextEditorCommand): Promise<AdapterResultsView<O, TextEditorResult>>
  /**
   * Runs a tool_use block's command and resolves to the tool_result block to send
   * back: text content (a view's lines as `N: text`), `is_error: true` on failure
   * with the engine's diagnosis. Never rejects.
   */
  toolResult(block: Pick<ToolUseBlockParam, 'id' | 'name' | 'input'>): Promise<ToolResultBlockParam>
}

/**
 * Anthropic's text editor tool carried out by the engine inside
 * `options.workspaceRoot`. Throws NATIVE_ENGINE_UNAVAILABLE when this platform
 * has no engine, and a TypeError for a maxCharacters that is not a positive integer.
 */
export declare function createTextEditor<O extends TextEditorOptions = TextEditorOptions>(options?: O): TextEditor<O>
