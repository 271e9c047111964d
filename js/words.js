'use strict'
// The engine's answers name the JavaScript API (`options.hardLinks`,
// `applyDryRun`, `patchFile`); an MCP client has tool names and the server's
// configuration instead. `toolWords` (every tool set's answers) and
// `settingWords` (the MCP server's) rewrite those words in a result's texts,
// so that no answer offers a call or an option the client cannot use.

/** The JavaScript API's names of calls, as MCP tool names. */
const TOOL_OF = {
  patchFile: 'patch_file',
  batchPatchFiles: 'batch_patch_files',
  readFile: 'read_file',
  writeFile: 'write_file',
  editLines: 'edit_lines',
}

/** The engine options a server sets from its configuration, as said there. */
const SETTINGS = [
  [/options\.hardLinks: "(\w+)"/g, (_, v) => `PATCH_FILE_HARD_LINKS=${v} in the server's environment`],
  [/options\.syntax: "(\w+)"/g, (_, v) => `--syntax ${v} (or PATCH_FILE_SYNTAX=${v}) in the server's configuration`],
  [/options\.elisions: "(\w+)"/g, (_, v) => `PATCH_FILE_ELISIONS=${v} in the server's environment`],
  [/apply it with the workspaceRoot it was made with/g, () => 'apply it while that root is one of the workspace roots'],
  [/ bytes, options\.journal\.maxFileBytes\)/g, () => ' bytes)'],
]

/**
 * `text` with `say` applied to what lies outside its backquoted spans: those
 * quote the caller's paths and file text (`readFile.js`, a line calling
 * `writeFile(x)`), which no rewrite may touch. A span that is exactly one
 * of `names` (`` `readFile` ``) names the API and goes through `say` too.
 */
function outsideQuotes(text, say, names) {
  if (!text.includes('`')) return say(text)
  return text
    .split(/(`[^`\n]*`)/)
    .map((part, i) => {
      if (i % 2 === 0) return say(part)
      return names.has(part.slice(1, -1)) ? say(part) : part
    })
    .join('')
}

const API_NAMES = new Set([...Object.keys(TOOL_OF), 'applyDryRun'])

/** `text` naming the listed tools (`listed`: their names) for the JavaScript API's calls. */
function sayTools(text, listed) {
  const applies = listed.has('apply_last_dry_run')
  return outsideQuotes(
    text,
    (part) => {
      let out = part
        .replace(/apply it with applyDryRun, or review/g, applies ? 'apply it with apply_last_dry_run, or review' : 'send the call again without dry_run to write it, or review')
        .replace(/ for applyDryRun;/g, applies ? ' for apply_last_dry_run;' : ';')
        .replace(/\bapplyDryRun\b/g, applies ? 'apply_last_dry_run' : 'the same call without dry_run')
      for (const [api, tool] of Object.entries(TOOL_OF)) {
        const said = listed.has(tool) ? tool : api === 'patchFile' ? SEARCH_REPLACE.find((t) => listed.has(t)) : undefined
        if (said) out = out.replace(new RegExp(`\\b${api}\\b`, 'g'), said)
      }
      return out
    },
    API_NAMES,
  )
}

/** The tools that replace a block of a file, for patchFile where patch_file is not listed (`filesystem`: edit_file). */
const SEARCH_REPLACE = ['edit_file', 'edit_block', 'str_replace_based_edit_tool']

/** `text` naming the server's configuration for the JavaScript API's options. */
function saySettings(text) {
  return outsideQuotes(
    text,
    (part) => {
      let out = part
      for (const [re, to] of SETTINGS) out = out.replace(re, to)
      return out
    },
    new Set(),
  )
}

/** The keys whose text (or list of texts) is read by the model. */
const TEXTS = new Set(['message', 'diff_omitted', 'warnings', 'warning', 'note', 'why_not_undoable'])

/**
 * `result` with each text the model reads passed through `say` (the same
 * object when none changed), at every depth (a batch's files, a failure's
 * edits).
 * @param {unknown} result
 * @param {(text: string) => string} say
 */
function rewrite(result, say, depth = 0) {
  if (result === null || typeof result !== 'object' || depth > 8) return result
  if (Array.isArray(result)) {
    const out = result.map((x) => rewrite(x, say, depth + 1))
    return out.some((x, i) => x !== result[i]) ? out : result
  }
  let out = result
  for (const [k, v] of Object.entries(result)) {
    let w = v
    if (TEXTS.has(k) && typeof v === 'string') w = say(v)
    else if (TEXTS.has(k) && Array.isArray(v)) w = v.map((x) => (typeof x === 'string' ? say(x) : x))
    else if (v !== null && typeof v === 'object') w = rewrite(v, say, depth + 1)
    if (w === v || (Array.isArray(w) && w.every((x, i) => x === v[i]))) continue
    if (out === result) out = { ...result }
    out[k] = w
  }
  return out
}

/**
 * `result` naming the tools of a set (`listed`: their names) for the calls
 * of the JavaScript API: every tool set's answers (js/tools.js forSet), the
 * MCP server's and the agent-SDK adapters'.
 * @param {unknown} result
 * @param {Set<string>} listed
 */
function toolWords(result, listed) {
  return rewrite(result, (t) => sayTools(t, listed))
}

/**
 * `result` naming the MCP server's configuration for the JavaScript API's
 * options (the adapters' options are the developer's, set through that API).
 * @param {unknown} result
 */
function settingWords(result) {
  return rewrite(result, saySettings)
}

module.exports = { toolWords, settingWords }
