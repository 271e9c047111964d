// Types of patch-file-tool/langchain (CommonJS; langchain.d.mts is the same for ES modules).
import type { StructuredTool } from '@langchain/core/tools'
import type { ApplyPatchOperation } from '@langchain/openai'
import type { FormatOptions, PatchFileOptions } from '../../index.js'

/**
 * The `execute` of `tools.applyPatch({ execute })` from @langchain/openai: applies
 * each operation (V4A diffs) with the engine inside `options.workspaceRoot` and
 * resolves to the text for the model (what was done, or the failure with the
 * engine's diagnosis); never rejects. Throws NATIVE_ENGINE_UNAVAILABLE when this
 * platform has no engine.
 */
export declare function createApplyPatchExecute(options?: FormatOptions): (operation: ApplyPatchOperation) => Promise<string>

/**
 * The default tool set as LangChain tools (`tool()` of @langchain/core), in
 * listing order, named as the MCP tools, with the package's own descriptions
 * and input schemas. Invoked with a tool call, a tool returns a ToolMessage:
 * content is the result's JSON (or the failure text with the engine's
 * diagnosis), artifact the engine's result object, status "error" on failure.
 * LangChain first checks the arguments against the schema: arguments that do
 * not fit are its ToolInputParsingException, naming what is wrong (its agents
 * answer that with an error ToolMessage); the engine's failures never throw.
 */
/** `options.tools`: tool or profile names (`'anchors'`: read_file, edit_lines, undo); the default set without it. */
export declare function createPatchFileTools(options?: PatchFileOptions & { tools?: string | readonly string[] }): StructuredTool[]
