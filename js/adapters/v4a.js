'use strict'
// OpenAI's apply_patch tool, applied by the engine.
//
// The Responses API's apply_patch tool hands the application one file
// operation at a time: `create_file` (path, diff), `update_file` (path, diff,
// and in the Agents SDK an optional moveTo) or `delete_file` (path). The
// diff is "V4A", headerless: a create's diff is the new file's lines, each
// prefixed with `+`; an update's diff is `@@ [anchor]` sections of ` `, `-`
// and `+` lines (the first section may omit its `@@`), ended by an optional
// `*** End of File`. That is exactly the body of a section of a Codex patch,
// which the engine applies (exact first, then ignoring trailing whitespace,
// surrounding whitespace, Unicode punctuation; unique or refused; atomic).
//
// The operation reaches the engine as structure, `applyPatch({ operation:
// { type, path, diff, move_to } })`, never as patch text to be parsed again:
// the path is a field, and the diff is the body of that one operation, so no
// line of it and no character of the path can add, drop or redirect an
// operation (a `*** Delete File:` line in a diff is refused, ` *** Delete
// File:` is a context line). Before the engine, the shapes a model gets
// wrong most are refused here with the engine's codes (INVALID_INPUT,
// PATCH_PARSE_ERROR) and line numbers of the model's own diff.
//
// The result is text for the model (OpenAI's apply_patch output is a
// string): what was done, or js/adapters/render.js's failure text. Nothing
// here throws: the operation is read once, before anything runs, and one
// whose reading throws (a getter, a Proxy: misuse from code) is refused
// with INVALID_INPUT; an unexpected exception becomes an INTERNAL_ERROR
// result.

const engine = require('../engine.js')
const { failureText, syntaxText, internalError, unreadableMessage } = require('./render.js')

const OPERATIONS = ['create_file', 'update_file', 'delete_file']

function refused(code, message, extra = {}) {
  return { ok: false, code, message: `${message}; nothing was written`, format: 'apply_patch', ...extra }
}

/** An INVALID_INPUT result when `p` cannot stand on a header line, else null. */
function badPath(p, field) {
  if (typeof p !== 'string' || p.length === 0) return refused('INVALID_INPUT', `\`${field}\` must be a non-empty path relative to the workspace root`)
  if (/[\r\n]/.test(p)) return refused('INVALID_INPUT', `\`${field}\` must not contain a line break`)
  if (p.trim() !== p) return refused('INVALID_INPUT', `\`${field}\` must not start or end with whitespace`)
  return null
}

/** The diff's lines; a final line break ends the last line rather than adding an empty one. */
function diffLines(diff) {
  const lines = diff.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

const show = (line) => (line.length > 80 ? `${line.slice(0, 80)}…` : line)

/** A PATCH_PARSE_ERROR at line `i` (0-based) of the diff, or null when every line fits. */
function checkCreate(lines) {
  const i = lines.findIndex((l) => !l.startsWith('+'))
  if (i === -1) return null
  return refused(
    'PATCH_PARSE_ERROR',
    `diff line ${i + 1}: a create_file diff is the new file's lines, each starting with \`+\`; found \`${show(lines[i])}\``,
    { line: i + 1, expected: 'a line starting with `+`' },
  )
}

function checkUpdate(lines) {
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].replace(/\r$/, '')
    if (l === '' || l === '*** End of File' || ' -+'.includes(l[0]) || l.startsWith('@@')) continue
    const header = l.startsWith('***')
    return refused(
      'PATCH_PARSE_ERROR',
      header
        ? `diff line ${i + 1}: an update_file diff is the body of the update only (\`@@\` sections of \` \`, \`-\` and \`+\` lines, optionally ending with \`*** End of File\`), without \`*** \` header lines; found \`${show(l)}\``
        : `diff line ${i + 1}: expected a line starting with \` \` (context), \`-\` (removed), \`+\` (added) or \`@@\`; found \`${show(l)}\``,
      { line: i + 1, expected: 'a line starting with ` `, `-`, `+` or `@@`' },
    )
  }
  return null
}

/**
 * The fields of an operation this adapter uses, read once into a plain
 * object (`type`, when given, stands for the operation's own); anything but
 * an object as it is. Throws what reading the operation throws.
 */
function snapshot(op, type) {
  if (!op || typeof op !== 'object') return type === undefined ? op : { type }
  const { path, diff, moveTo, move_to } = op
  return { type: type === undefined ? op.type : type, path, diff, moveTo, move_to }
}

/**
 * The engine's input for one operation (`{ operation }`), or `failure` when
 * the operation is refused before the engine.
 */
function toInput(op) {
  if (!op || typeof op !== 'object' || !OPERATIONS.includes(op.type)) {
    return { failure: refused('INVALID_INPUT', `the operation's \`type\` must be one of ${OPERATIONS.join(', ')}`) }
  }
  const pathFailure = badPath(op.path, 'path')
  if (pathFailure) return { failure: pathFailure }
  if (op.type === 'delete_file') return { input: { operation: { type: op.type, path: op.path } } }
  if (typeof op.diff !== 'string') return { failure: refused('INVALID_INPUT', `a ${op.type} operation needs \`diff\` (a string)`) }
  const lines = diffLines(op.diff)
  const operation = { type: op.type, path: op.path, diff: op.diff }
  if (op.type === 'create_file') {
    const failure = checkCreate(lines)
    return failure ? { failure } : { input: { operation } }
  }
  const failure = checkUpdate(lines)
  if (failure) return { failure }
  const moveTo = op.moveTo !== undefined && op.moveTo !== null ? op.moveTo : op.move_to
  if (moveTo === undefined || moveTo === null) return { input: { operation } }
  const moveFailure = badPath(moveTo, 'moveTo')
  if (moveFailure) return { failure: moveFailure }
  return { input: { operation: { ...operation, move_to: moveTo } } }
}

/** The engine numbers an operation's hunks by the lines of its diff; the model reads them as such. */
const asDiffLines = (message) => message.replace(/\(patch line (\d+)\)/g, '(diff line $1)')

const LEVELS = {
  trailing_whitespace: 'ignoring trailing whitespace',
  surrounding_whitespace: 'ignoring surrounding whitespace',
  unicode_punctuation: 'ignoring Unicode punctuation',
}

function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`
}

/** What a successful operation did, in one line (plus the engine's warnings). */
function successText(op, r) {
  const f = (Array.isArray(r.files) && r.files[0]) || {}
  const out = []
  if (op.type === 'delete_file') out.push(`Deleted ${op.path}.`)
  else if (op.type === 'create_file') {
    out.push(
      f.created === false
        ? `Replaced ${op.path}, which already existed${Number.isInteger(f.before_bytes) ? ` (${f.before_bytes} bytes before, ${f.after_bytes} now)` : ''}.`
        : `Created ${op.path}${Number.isInteger(f.after_bytes) ? ` (${f.after_bytes} bytes)` : ''}.`,
    )
  } else {
    const hunks = Array.isArray(f.hunks) ? f.hunks : []
    const moved = f.action === 'move' ? ` and moved it to ${op.moveTo !== undefined && op.moveTo !== null ? op.moveTo : op.move_to}` : ''
    const where = hunks.length ? `: ${plural(hunks.length, 'section')} applied at line ${hunks.map((h) => h.line_number).join(', ')}` : ''
    out.push(`Updated ${op.path}${moved}${where}.`)
    for (const h of hunks) {
      if (LEVELS[h.level]) out.push(`Section ${h.index + 1} matched only ${LEVELS[h.level]}.`)
    }
  }
  // No run_id: nothing in this tool set applies one (js/tools.js forSet); the operation is sent again instead.
  out.push(...syntaxText(f.syntax))
  if (r.dry_run) out.push('Dry run: nothing was written.', r.diff || '')
  for (const w of Array.isArray(r.warnings) ? r.warnings : []) out.push(`warning: ${w}`)
  return out.join('\n')
}

/**
 * Applies one apply_patch operation through the engine with `options` (the
 * engine's options); `type`, when given, is the operation's type whatever it
 * says (the Agents SDK's editor has a method per type). Resolves to { ok,
 * output, result }: `output` is the text for the model, `result` the engine's
 * result object. Never rejects.
 */
async function applyOperation(operation, options, type) {
  let op
  try {
    op = snapshot(operation, type)
  } catch (err) {
    const failure = refused('INVALID_INPUT', unreadableMessage('the operation', err))
    return { ok: false, output: failureText(failure), result: failure }
  }
  let built
  try {
    built = toInput(op)
  } catch (err) {
    built = { failure: internalError(err) }
  }
  if (built.failure) return { ok: false, output: failureText(built.failure), result: built.failure }
  let result
  try {
    result = await engine.engine().applyPatch(built.input, engine.compactOptions(options))
  } catch (err) {
    result = internalError(err)
  }
  if (!result || result.ok !== true) {
    const failed = result && typeof result === 'object' ? result : internalError(new Error('no result'))
    return { ok: false, output: failureText(failed, { mapMessage: asDiffLines }), result: failed }
  }
  return { ok: true, output: successText(op, result), result }
}

module.exports = { applyOperation, toInput }
