// patch-file-tool/anthropic (ES module): the CommonJS module's exports.
import { createRequire } from 'node:module'

export const { createTextEditor } = createRequire(import.meta.url)('./anthropic.js')
