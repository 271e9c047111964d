// Types of patch-file-tool/openai-agents (ES modules; openai-agents.d.ts is the same for CommonJS).
import type { Editor } from '@openai/agents'
import type { FormatOptions } from '../../index.js'

/**
 * An `Editor` for `applyPatchTool({ editor })` of @openai/agents: each operation
 * (create_file, update_file with optional moveTo, delete_file; V4A diffs) is
 * applied atomically by the engine inside `options.workspaceRoot`. Resolves to
 * `{ status: 'completed' | 'failed', output }`, never rejects; a failure's
 * output carries the engine's diagnosis. Throws NATIVE_ENGINE_UNAVAILABLE when
 * this platform has no engine.
 */
export declare function createEditor(options?: FormatOptions): Editor
