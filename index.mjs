// Public entry point (ES module): the same objects as the CommonJS entry.
import { createRequire } from 'node:module'

const api = createRequire(import.meta.url)('./index.js')

export const {
  patchFile,
  patchFileSync,
  batchPatchFiles,
  applyDryRun,
  readFile,
  writeFile,
  applyEditBlocks,
  applyPatch,
  textEditor,
  editFile,
  PATCH_FILE_ERROR_CODES,
  patchFileSchema,
  schemas,
} = api
export default api
