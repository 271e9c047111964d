'use strict'
// patch-file-tool/anthropic: Anthropic's text editor tool
// (`text_editor_20250728`, named `str_replace_based_edit_tool`), which the
// Messages API leaves to the client to carry out, carried out by the engine.
//
//   const editor = createTextEditor({ workspaceRoot })
//   client.messages.create({ tools: [editor.tool], ... })
//   ... for each tool_use block: await editor.toolResult(block)
//
// - `tool`: the tool definition, with `max_characters` when
//   options.maxCharacters is set (the engine's view then truncates to it).
// - `run(input)`: the engine's textEditor on the tool_use input: `view`
//   (optionally `view_range`), `create`, `str_replace`, `insert`
//   (`insert_line` with `insert_text`, or `new_str`); resolves to the
//   engine's result object.
// - `toolResult(block)`: `run` on the block's input, as the `tool_result`
//   block to send back: content is text, `is_error: true` on failure.
//
// What the model reads follows the tool's documentation: a view shows each
// line as `N: text` (the documented form; the line numbers are what
// view_range and insert_line refer to); an edit answers with the numbered
// lines around it; a failure is js/adapters/render.js's text with the
// engine's diagnosis. Nothing here throws into the caller's loop: a block or
// an input whose reading throws (a getter, a Proxy: misuse from code) is
// answered INVALID_INPUT, having run nothing, and each is read once, before
// the engine runs, so nothing is read after a write. This module loads
// nothing of the SDK (its types only describe the objects).

const engine = require('../engine.js')
const { failureText, syntaxText, internalError, unreadable } = require('./render.js')

const TOOL_TYPE = 'text_editor_20250728'
const TOOL_NAME = 'str_replace_based_edit_tool'

/** The engine's `cat -n` lines (`%6d\t`) in the tool's documented `N: ` form; other lines as they are. */
function numbered(content) {
  // Split on \n only: a line of the file may hold a lone \r or U+2028, which a /m regex would take for a line start.
  return content
    .split('\n')
    .map((line) => line.replace(/^ *(\d+)\t/, '$1: '))
    .join('\n')
}

function withWarnings(lines, r) {
  lines.push(...syntaxText(r.syntax))
  for (const w of Array.isArray(r.warnings) ? r.warnings : []) lines.push(`warning: ${w}`)
  return lines.join('\n')
}

/**
 * The tool_result text of a successful command; `given` is the path the
 * input named. A dry run's run_id is left out: this tool set has nothing
 * that applies one (js/tools.js forSet), so the change is written by sending
 * the command again without dry_run.
 */
function successText(given, r) {
  const path = typeof given === 'string' ? given : r.file_path
  if (r.dry_run) return withWarnings(['Dry run: nothing was written. The change would be:', r.diff || ''], r)
  switch (r.command) {
    case 'view': {
      if (r.kind === 'directory') {
        const listing = r.content ? r.content.replace(/\n$/, '') : '(empty directory)'
        return r.truncated ? `${listing}\n[listing truncated]` : listing
      }
      if (!r.content) return `${path} is empty (${r.total_lines} lines).`
      let text = numbered(r.content).replace(/\n$/, '')
      if (!r.truncated) return text
      // A cut inside a line's number (`     2`, no tab yet) is no line of the file.
      text = text.replace(/\n *\d*$/, '')
      return `${text}\n[truncated to max_characters; the file has ${r.total_lines} lines: view a narrower view_range to see the rest]`
    }
    case 'create':
      return withWarnings([Number.isInteger(r.after_bytes) ? `Created ${path} (${r.after_bytes} bytes).` : `Created ${path}.`], r)
    case 'str_replace':
    case 'insert': {
      const what = r.command === 'insert' ? `Inserted the text into ${path} at line ${r.line_number}.` : `Edited ${path} at line ${r.line_number}.`
      const lines = [what]
      if (r.snippet) lines.push('The lines around it now:', numbered(r.snippet).replace(/\n$/, ''))
      return withWarnings(lines, r)
    }
    case 'undo_edit':
      return withWarnings([r.removed ? `Undid the edit that created ${path}: the file is removed.` : `Restored ${path} as it was before its last edit.`], r)
    default:
      return JSON.stringify(r)
  }
}

/**
 * The text editor: `tool` (the definition to send), `run(input)` (the engine's
 * result) and `toolResult(block)` (the tool_result block). `options` are the
 * engine's options plus `maxCharacters`. Loads the engine now.
 */
function createTextEditor(options) {
  const { maxCharacters, ...engineOptions } = options && typeof options === 'object' ? options : {}
  if (maxCharacters !== undefined && !(Number.isSafeInteger(maxCharacters) && maxCharacters > 0)) {
    throw new TypeError(`createTextEditor: options.maxCharacters must be a positive integer, not ${JSON.stringify(maxCharacters)}`)
  }
  engine.warm()
  engine.checkOptions(engineOptions, 'createTextEditor', { formats: true })
  const callOptions = engine.compactOptions(engineOptions)
  const tool = { type: TOOL_TYPE, name: TOOL_NAME }
  if (maxCharacters !== undefined) tool.max_characters = maxCharacters

  /**
   * What a call needs of `input`, read once: the command for the engine
   * (with max_characters for a view when the options set it) and the path it
   * names. Throws what reading `input` throws.
   */
  function read(input) {
    if (!input || typeof input !== 'object') return { command: input, path: undefined }
    const path = input.path
    let command = input
    if (maxCharacters !== undefined && input.command === 'view' && input.max_characters === undefined && input.maxCharacters === undefined) {
      command = { ...input, max_characters: maxCharacters }
    }
    return { command, path }
  }

  async function execute(command) {
    try {
      return await engine.engine().textEditor(command, callOptions)
    } catch (err) {
      return internalError(err)
    }
  }

  async function run(input) {
    let call
    try {
      call = read(input)
    } catch (err) {
      return unreadable('the input', err)
    }
    return execute(call.command)
  }

  async function toolResult(block) {
    let id
    let name
    let input
    const answer = (content, failed) => (failed ? { type: 'tool_result', tool_use_id: id, content, is_error: true } : { type: 'tool_result', tool_use_id: id, content })
    try {
      if (block && typeof block === 'object') ({ id, name, input } = block)
    } catch (err) {
      return answer(failureText(unreadable('the tool_use block', err)), true)
    }
    if (name !== TOOL_NAME) {
      let shown
      try {
        shown = JSON.stringify(name)
      } catch {
        shown = `a ${typeof name}`
      }
      return answer(failureText({ code: 'INVALID_INPUT', message: `this editor carries out ${TOOL_NAME}, not ${shown}` }), true)
    }
    let call
    try {
      call = read(input)
    } catch (err) {
      return answer(failureText(unreadable('the input', err)), true)
    }
    const result = await execute(call.command)
    if (result && result.ok === true) return answer(successText(call.path, result), false)
    return answer(failureText(result), true)
  }

  return { tool, run, toolResult }
}

module.exports = { createTextEditor }
