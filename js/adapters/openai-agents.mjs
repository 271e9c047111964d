// patch-file-tool/openai-agents (ES module): the CommonJS module's exports.
import { createRequire } from 'node:module'

export const { createEditor } = createRequire(import.meta.url)('./openai-agents.js')
