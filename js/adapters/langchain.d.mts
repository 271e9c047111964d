// Types of patch-file-tool/langchain (ES modules; langchain.d.ts is the same for CommonJS).
import type { StructuredTool } from '@langchain/core/tools'
import type { ToolMessage } from '@langchain/core/messages'
import type {
  AdapterResultsView,
  EditLinesResult,
  FormatOptions,
  FormatResult,
  PatchFileOptions,
  PatchFileResult,
  ReadFileResult,
  UndoResult,
  WriteFileResult,
} from '../../index.js'

/**
 * An apply_patch operation as OpenAI's Responses API sends it (the shape of `@langchain/openai`'s
 * `ApplyPatchOperation`, written here so that these types need no optional peer).
 */
export type ApplyPatchOperation =
  | { type: 'create_file'; path: string; diff: string }
  | { type: 'update_file'; path: string; diff: string }
  | { type: 'delete_file'; path: string }

/**
 * The `execute` of `tools.applyPatch({ execute })` from @langchain/openai: applies
 * each operation (V4A diffs) with the engine inside `options.workspaceRoot`. Called
 * by the tool with a tool call, it resolves to a ToolMessage whose content is the
 * text for the model (what was done, or the failure with the engine's diagnosis),
 * artifact the engine's result object (`ToolArtifacts<O>['apply_patch']`: compact
 * unless the options say `results: 'full'`), status "error" on failure; called without
 * one, to that text. Never rejects. Throws NATIVE_ENGINE_UNAVAILABLE when this
 * platform has no engine.
 */
export declare function createApplyPatchExecute(options?: FormatOptions): ApplyPatchExecute

/**
 * What a ToolMessage's `artifact` holds, by tool name (LangChain types `artifact` as `any`): the engine's result
 * object, in its compact view unless the options `O` say `results: 'full'` as a literal type (AdapterResultsView).
 * `apply_patch` is createApplyPatchExecute's too. Read it as, e.g., `message.artifact as ToolArtifacts['patch_file']`.
 */
export type ToolArtifacts<O = PatchFileOptions> = {
  patch_file: AdapterResultsView<O, PatchFileResult>
  read_file: AdapterResultsView<O, ReadFileResult>
  write_file: AdapterResultsView<O, WriteFileResult>
  apply_patch: AdapterResultsView<O, FormatResult>
  undo: AdapterResultsView<O, UndoResult>
  edit_lines: AdapterResultsView<O, EditLinesResult>
}

/** createApplyPatchExecute's function: the text alone, or (with LangChain's config of a tool call) a ToolMessage. */
export interface ApplyPatchExecute {
  (operation: ApplyPatchOperation): Promise<string>
  (operation: ApplyPatchOperation, config: { toolCall?: { id?: string } }): Promise<string | ToolMessage>
}

/**
 * The default tool set as LangChain tools (`tool()` of @langchain/core), in
 * listing order, named as the MCP tools, with the package's own descriptions
 * and input schemas. Invoked with a tool call, a tool returns a ToolMessage:
 * content is the result's JSON (or the failure text with the engine's
 * diagnosis), artifact the engine's result object (`ToolArtifacts<O>[name]`:
 * compact unless the options say `results: 'full'`), status "error" on failure.
 * The arguments are checked by the engine, not by LangChain's validator: what the
 * engine accepts (its aliases, such as `old_string`) lands, and what it refuses
 * (an unknown or missing field) is an error ToolMessage naming the field; a call
 * never throws. bindTools still gives the model the listed schema.
 */
/** `options.tools`: tool or profile names (`'anchors'`: read_file, edit_lines, undo); the default set without it. */
export declare function createPatchFileTools(options?: PatchFileOptions & { tools?: string | readonly string[] }, toolOptions?: ToolOptions): StructuredTool[]

/**
 * How the tools are presented to the model. `strict: true`: each tool's schema is
 * its strict variant (`patch-file-tool/schemas/strict/<name>.json`: every property
 * required, the optional ones nullable, `additionalProperties: false` throughout),
 * for `model.bindTools(tools, { strict: true })`. The model then sends `null` for
 * what it leaves out, which the engine takes as absent.
 */
export interface ToolOptions {
  strict?: boolean
}
