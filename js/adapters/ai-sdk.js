'use strict'
// patch-file-tool/ai-sdk (CommonJS): the default tool set as Vercel AI SDK
// tools. js/adapters/toolset.js builds them; ai-sdk.mjs is the ES module
// entry, which passes the SDK's ES module build instead.

const { requirePeer } = require('./peer.js')
const { aiSdkTools } = require('./toolset.js')

const ai = requirePeer('ai', 'ai', 'patch-file-tool/ai-sdk')

/** The default tools, keyed by tool name, for `generateText({ tools })` and the rest of the AI SDK; `{ strict: true }`: strict tools. */
function createPatchFileTools(options, toolOptions) {
  return aiSdkTools(ai, options, toolOptions)
}

module.exports = { createPatchFileTools }
