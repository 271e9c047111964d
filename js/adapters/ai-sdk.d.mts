// Types of patch-file-tool/ai-sdk (ES modules; ai-sdk.d.ts is the same for CommonJS).
import type { Tool } from 'ai'
import type {
  AdapterResultsView,
  ApplyPatchInput,
  EditLinesInput,
  EditLinesResult,
  FormatResult,
  PatchFileInput,
  PatchFileOptions,
  PatchFileResult,
  ReadFileInput,
  ReadFileResult,
  UndoInput,
  UndoResult,
  WriteFileInput,
  WriteFileResult,
} from '../../index.js'

/**
 * The default tool set as AI SDK tools, keyed by tool name. Each tool's
 * description and input schema are the package's own (`schemas.<name>`);
 * `execute` resolves to the engine's result object and never rejects: its
 * compact view (`Compact<…>`, fields such as `sha256_before` and the sizes
 * optional) unless the options `O` say `results: 'full'` as a literal type
 * (AdapterResultsView). The model receives a success as that JSON (a dry
 * run's without its `run_id`, which no tool of the set applies) and a failure
 * as error text with the engine's diagnosis (code, message, closest match's
 * current text).
 */
export type PatchFileTools<O = PatchFileOptions> = {
  patch_file: Tool<PatchFileInput, AdapterResultsView<O, PatchFileResult>>
  read_file: Tool<ReadFileInput, AdapterResultsView<O, ReadFileResult>>
  write_file: Tool<WriteFileInput, AdapterResultsView<O, WriteFileResult>>
  apply_patch: Tool<ApplyPatchInput, AdapterResultsView<O, FormatResult>>
  undo: Tool<Extract<UndoInput, object>, AdapterResultsView<O, UndoResult>>
}

/**
 * The default tools for `generateText({ tools })`, `streamText`, agents and the
 * rest of the AI SDK. `options` are the engine's (`workspaceRoot` sandboxes
 * every path). Throws NATIVE_ENGINE_UNAVAILABLE when this platform has no
 * engine; a call never throws. `toolOptions.strict`: strict tools (ToolOptions).
 */
/** The `anchors` tool set: read_file (send `anchors: true`), edit_lines, undo. */
export type AnchorTools<O = PatchFileOptions> = {
  read_file: Tool<ReadFileInput, AdapterResultsView<O, ReadFileResult>>
  edit_lines: Tool<EditLinesInput, AdapterResultsView<O, EditLinesResult>>
  undo: Tool<Extract<UndoInput, object>, AdapterResultsView<O, UndoResult>>
}

/** Which tools: tool or profile names (`'anchors'`, `'default'`, `'all'`, …), taken out of the engine's options. */
export type ToolChoice = { tools?: string | readonly string[] }

export declare function createPatchFileTools<O extends PatchFileOptions = PatchFileOptions>(options: O & { tools: 'anchors' }, toolOptions?: ToolOptions): AnchorTools<O>
export declare function createPatchFileTools<O extends PatchFileOptions = PatchFileOptions>(options?: O & { tools?: undefined }, toolOptions?: ToolOptions): PatchFileTools<O>
export declare function createPatchFileTools(options: PatchFileOptions & ToolChoice, toolOptions?: ToolOptions): Record<string, Tool>

/**
 * How the tools are presented to the model. `strict: true`: each tool's input
 * schema is its strict variant (`patch-file-tool/schemas/strict/<name>.json`:
 * every property required, the optional ones nullable, `additionalProperties:
 * false` throughout) and the tool has `strict: true`, so that a provider with a
 * strict mode (OpenAI) guarantees the arguments fit. The model then sends `null`
 * for what it leaves out, which the engine takes as absent.
 */
export interface ToolOptions {
  strict?: boolean
}
