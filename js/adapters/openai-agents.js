'use strict'
// patch-file-tool/openai-agents: an `Editor` for `applyPatchTool({ editor })`
// of the OpenAI Agents SDK (@openai/agents). Each operation the model sends
// (create_file, update_file with optional moveTo, delete_file; V4A diffs) is
// applied by the engine through js/adapters/v4a.js; the editor resolves to
// `{ status: 'completed' | 'failed', output }` and never throws, so a failure
// reaches the model as a failed apply_patch_call_output carrying the engine's
// diagnosis (an operation whose reading throws, misuse from code, too:
// INVALID_INPUT). The editor is plain JavaScript: this module loads nothing
// of the SDK.

const engine = require('../engine.js')
const { applyOperation } = require('./v4a.js')

function method(type, options) {
  return async (operation) => {
    const r = await applyOperation(operation, options, type)
    return { status: r.ok ? 'completed' : 'failed', output: r.output }
  }
}

/** An apply_patch `Editor` whose paths are relative to `options.workspaceRoot` (the engine's options). */
function createEditor(options) {
  engine.warm()
  engine.checkOptions(options, 'createEditor', { formats: true })
  return {
    createFile: method('create_file', options),
    updateFile: method('update_file', options),
    deleteFile: method('delete_file', options),
  }
}

module.exports = { createEditor }
