'use strict'
// patch-file-tool/langchain (CommonJS): for LangChain.js,
//
// - createApplyPatchExecute(options): the `execute` of `tools.applyPatch({
//   execute })` from @langchain/openai (OpenAI's apply_patch tool): each
//   operation goes through js/adapters/v4a.js and resolves to a ToolMessage
//   with the text for the model (what was done, or the failure with the
//   engine's diagnosis, status "error");
// - createPatchFileTools(options): the default tool set as `tool()`s of
//   @langchain/core (js/adapters/toolset.js), their arguments checked by the
//   engine rather than by LangChain's validator.
//
// langchain.mjs is the ES module entry, which builds the tools with
// @langchain/core's ES module build instead.

const { requirePeer } = require('./peer.js')
const { langchainTools, langchainApplyPatch } = require('./toolset.js')

const SUBPATH = 'patch-file-tool/langchain'
const lc = {
  tool: requirePeer('@langchain/core/tools', '@langchain/core', SUBPATH).tool,
  ToolMessage: requirePeer('@langchain/core/messages', '@langchain/core', SUBPATH).ToolMessage,
}

/** The `execute` for `tools.applyPatch({ execute })`: a ToolMessage (status "error" on failure), or the text without a tool call. Never rejects. */
function createApplyPatchExecute(options) {
  return langchainApplyPatch(lc, options)
}

/** The default tools as LangChain structured tools, in listing order; `{ strict: true }`: the strict schemas. */
function createPatchFileTools(options, toolOptions) {
  return langchainTools(lc, options, toolOptions)
}

module.exports = { createApplyPatchExecute, createPatchFileTools }
