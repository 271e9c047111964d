// patch-file-tool/langchain (ES module): the same functions as langchain.js,
// the tools built with @langchain/core's ES module build (the one the
// application imports).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { missingPeer } = require('./peer.js')
const { langchainTools } = require('./toolset.js')
const { textExecutor } = require('./v4a.js')

let lc
try {
  const [{ tool }, { ToolMessage }] = await Promise.all([import('@langchain/core/tools'), import('@langchain/core/messages')])
  lc = { tool, ToolMessage }
} catch (err) {
  throw missingPeer('@langchain/core', 'patch-file-tool/langchain', err)
}

/** The `execute` for `tools.applyPatch({ execute })`: operation -> Promise of the text for the model. Never rejects. */
export function createApplyPatchExecute(options) {
  return textExecutor(options)
}

/** The default tools as LangChain structured tools, in listing order. */
export function createPatchFileTools(options) {
  return langchainTools(lc, options)
}
