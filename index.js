'use strict'
// Public entry point (CommonJS). The native functions come from the napi-rs
// loader in binding.js; this file only adds the frozen error-code map and the
// tool schemas, which are JSON files shared with the MCP server.

const native = require('./binding.js')

const codes = {}
for (const code of native.errorCodes()) codes[code] = code

const schemas = {}
for (const name of [
  'patch_file',
  'batch_patch_files',
  'apply_last_dry_run',
  'read_file',
  'write_file',
  'edit_block',
  'apply_patch',
  'str_replace_based_edit_tool',
  'edit_file',
]) {
  schemas[name] = deepFreeze(require(`./schemas/${name}.schema.json`))
}

function deepFreeze(o) {
  for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v)
  return Object.freeze(o)
}

module.exports = {
  patchFile: native.patchFile,
  patchFileSync: native.patchFileSync,
  batchPatchFiles: native.batchPatchFiles,
  applyDryRun: native.applyDryRun,
  readFile: native.readFile,
  writeFile: native.writeFile,
  applyEditBlocks: native.applyEditBlocks,
  applyPatch: native.applyPatch,
  textEditor: native.textEditor,
  editFile: native.editFile,
  PATCH_FILE_ERROR_CODES: Object.freeze(codes),
  patchFileSchema: schemas.patch_file,
  schemas: Object.freeze(schemas),
}
