// patch-file-tool/langchain (ES module): the same functions as langchain.js,
// the tools built with @langchain/core's ES module build (the one the
// application imports).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { missingPeer } = require('./peer.js')
const { langchainTools, langchainApplyPatch } = require('./toolset.js')

let lc
try {
  const [{ tool }, { ToolMessage }] = await Promise.all([import('@langchain/core/tools'), import('@langchain/core/messages')])
  lc = { tool, ToolMessage }
} catch (err) {
  throw missingPeer('@langchain/core', 'patch-file-tool/langchain', err)
}

/** The `execute` for `tools.applyPatch({ execute })`: a ToolMessage (status "error" on failure), or the text without a tool call. Never rejects. */
export function createApplyPatchExecute(options) {
  return langchainApplyPatch(lc, options)
}

/** The default tools as LangChain structured tools, in listing order; `{ strict: true }`: the strict schemas. */
export function createPatchFileTools(options, toolOptions) {
  return langchainTools(lc, options, toolOptions)
}
