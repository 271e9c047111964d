// patch-file-tool/ai-sdk (ES module): the same tools as ai-sdk.js, built with
// the SDK's ES module build (the one the application imports).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { aiSdkTools } = require('./toolset.js')
const { missingPeer } = require('./peer.js')

let ai
try {
  ai = await import('ai')
} catch (err) {
  throw missingPeer('ai', 'patch-file-tool/ai-sdk', err)
}

/** The default tools, keyed by tool name, for `generateText({ tools })` and the rest of the AI SDK; `{ strict: true }`: strict tools. */
export function createPatchFileTools(options, toolOptions) {
  return aiSdkTools(ai, options, toolOptions)
}
