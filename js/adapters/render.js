'use strict'
// The text a model reads back when a call made through an agent SDK fails.
//
// Through MCP a model receives the engine's result object as JSON. Through
// the SDK adapters a failure is mostly text: OpenAI's apply_patch output and
// LangChain's applyPatch execute are strings, Anthropic's tool_result content
// is text, and the AI SDK and LangChain tools send a failure as error text.
// So a failure is written out once, here, for every adapter: the stable code
// and the engine's message first, then each piece of diagnosis the engine
// gave that the message does not already hold, the current text the model
// needs to retry most of all:
//
//   SEARCH_BLOCK_NOT_FOUND: search_block was not found; the closest text is lines 4-5 (...) ...
//   <closest_match lines="4-5" similarity="97%" differences="content">
//   function add(a, b) {
//     return a + b;
//   </closest_match>
//
// The current text sits alone between tag lines, byte for byte, so that the
// model can copy it: no quoting, no escaping, no line prefixes. Diagnosis
// nested in a multi-edit, multi-file or multi-hunk failure (failed_edits[],
// failures[], their hunks[] and blocks[]) is written out the same way, each
// part named (edits[1], `src/a.ts` hunk 2). Cost stays bounded: at most
// MAX_HINTS unique-context hints per occurrence list, however many matches.

const MAX_HINTS = 5

// Cut, not rounded, as the engine's messages say it (0.889: 88 %), so the two agree.
const percent = (x) => `${Math.floor(x * 100 + 1e-9)}%`

function lines(first, last) {
  return last !== undefined && last !== first ? `${first}-${last}` : `${first}`
}

/** `<closest_match …>` with the region's exact current text. */
function closestMatch(m, owner) {
  const attrs = []
  if (owner) attrs.push(`for="${owner}"`)
  if (Number.isInteger(m.line_number)) attrs.push(`lines="${lines(m.line_number, m.end_line)}"`)
  if (typeof m.similarity === 'number') attrs.push(`similarity="${percent(m.similarity)}"`)
  if (Array.isArray(m.differences) && m.differences.length) attrs.push(`differences="${m.differences.join(', ')}"`)
  const out = []
  if (Array.isArray(m.details) && m.details.length) out.push(`${owner ? `${owner}: ` : ''}${m.details.join('; ')}`)
  if (typeof m.text === 'string') out.push(`<closest_match ${attrs.join(' ')}>`, m.text, '</closest_match>')
  return out
}

/** The smallest unique blocks around each occurrence of an ambiguous block. */
function uniqueHints(hints, owner) {
  const out = []
  for (const h of hints.slice(0, MAX_HINTS)) {
    if (!h || typeof h.search_block !== 'string') continue
    const attrs = [owner ? `for="${owner}"` : '', `occurrence_line="${h.match_line}"`, `lines="${lines(h.line_number, h.end_line)}"`]
    out.push(`<unique_block ${attrs.filter(Boolean).join(' ')}>`, h.search_block, '</unique_block>')
  }
  if (hints.length > MAX_HINTS) out.push(`(${hints.length - MAX_HINTS} more occurrences)`)
  return out
}

/**
 * Adds one diagnosed part (the result itself, a failed edit, a failing file
 * operation, hunk or block): its message unless an earlier line already
 * holds it, then its current text and hints.
 */
function part(out, said, d, owner, mapMessage) {
  if (!d || typeof d !== 'object') return
  if (typeof d.message === 'string') {
    const message = mapMessage(d.message)
    if (!said.some((s) => s.includes(message))) {
      const named = owner && !message.startsWith(`${owner}:`) ? `${owner}: ` : ''
      const line = `${named}${d.code && d.code !== said.code ? `${d.code}: ` : ''}${message}`
      out.push(line)
      said.push(line)
    }
  }
  if (Array.isArray(d.match_lines) && d.match_lines.length && !said.some((s) => s.includes(d.match_lines.join(', ')))) {
    out.push(`${owner ? `${owner}: ` : ''}matches at lines ${d.match_lines.join(', ')}`)
  }
  if (d.closest_match && typeof d.closest_match === 'object') {
    const key = JSON.stringify([d.closest_match.line_number, d.closest_match.end_line, d.closest_match.text])
    if (!said.closest.has(key)) {
      said.closest.add(key)
      out.push(...closestMatch(d.closest_match, owner))
    }
  }
  if (Array.isArray(d.unique_context_hint) && d.unique_context_hint.length) out.push(...uniqueHints(d.unique_context_hint, owner))
}

/**
 * The model-facing text of a failed engine result (`ok: false`): its code
 * and message, then every diagnosis it carries. `mapMessage` rewrites each
 * engine message first (the V4A adapter names an operation's lines diff lines).
 */
function failureText(result, { mapMessage = (m) => m } = {}) {
  const r = result && typeof result === 'object' ? result : {}
  const code = typeof r.code === 'string' ? r.code : 'INTERNAL_ERROR'
  const message = mapMessage(typeof r.message === 'string' ? r.message : 'the call failed')
  const head = `${code}: ${message}`
  const out = [head]
  const said = [head]
  said.code = code
  said.closest = new Set()
  const edits = Array.isArray(r.failed_edits) ? r.failed_edits : []
  for (const e of edits) part(out, said, e, Number.isInteger(e && e.index) ? `edits[${e.index}]` : '', mapMessage)
  for (const f of Array.isArray(r.failures) ? r.failures : []) {
    if (!f || typeof f !== 'object') continue
    // The compact view gives `path` only where it differs from `file_path`.
    const named = typeof f.path === 'string' ? f.path : f.file_path
    const file = typeof named === 'string' ? `\`${named}\`` : ''
    part(out, said, f, file, mapMessage)
    for (const h of Array.isArray(f.hunks) ? f.hunks : []) part(out, said, h, `${file} hunk ${Number(h && h.index) + 1}`.trim(), mapMessage)
    for (const b of Array.isArray(f.blocks) ? f.blocks : []) part(out, said, b, `${file} block ${Number(b && b.index) + 1}`.trim(), mapMessage)
  }
  // The result's own diagnosis, unless a part above already gave it.
  part(out, said, { ...r, message: undefined }, '', mapMessage)
  if (r.already_applied === true) out.push('already_applied: the replacement is already in the file; do not retry this edit')
  out.push(...syntaxText(r.syntax))
  return out.join('\n')
}

const UNCHECKED = { too_large: 'the file is over 4 MiB', timeout: 'its parse ran past the time budget' }

/**
 * The lines of a `syntax` report (the engine's syntax guard): each parse
 * error the edit introduced, where, what, and the line as written, so that
 * one more edit can mend it; or why the file was not checked.
 */
function syntaxText(report, owner = '') {
  if (!report || typeof report !== 'object') return []
  const name = owner ? `${owner}: ` : ''
  if (typeof report.unchecked === 'string') return [`${name}syntax not checked: ${UNCHECKED[report.unchecked] || report.unchecked}`]
  const errors = Array.isArray(report.errors) ? report.errors : []
  if (!errors.length) return []
  const more = Number.isInteger(report.more_errors) ? report.more_errors : 0
  const total = errors.length + more
  const out = [`${name}the new text has ${total === 1 ? 'a parse error' : `${total} parse errors`} (${report.language}) the edit introduced:`]
  for (const e of errors) {
    const what = e.problem === 'missing' ? `missing \`${e.token}\`` : `unexpected \`${e.token}\``
    const expected = Array.isArray(e.expected) && e.expected.length ? ` (expected ${e.expected.map((x) => `\`${x}\``).join(', ')})` : ''
    out.push(`line ${e.line}, column ${e.column}: ${what}${expected}`, `  ${e.text}`)
  }
  if (more) out.push(`(${more} more)`)
  return out
}

/** What a thrown value says, for a message; never throws (the value may be hostile too). */
function errorText(err) {
  try {
    const m = err !== null && typeof err === 'object' && 'message' in err ? err.message : err
    return typeof m === 'string' ? m : String(m)
  } catch {
    return 'a value that cannot be shown'
  }
}

/** An engine result from an exception thrown by a call (never expected: the engine answers every input). */
function internalError(err) {
  return { ok: false, code: 'INTERNAL_ERROR', message: `internal error (${errorText(err)}); nothing was written` }
}

/**
 * Why `what` (the input, the operation, ...) was refused: reading it threw (a
 * getter or a Proxy trap that throws; misuse from code, a model's input is
 * JSON). Worded as the engine's own refusal of such a value.
 */
function unreadableMessage(what, err) {
  return `${what} threw an exception when read (${errorText(err)}); pass plain JSON values (objects, arrays, strings, numbers, booleans)`
}

/** The INVALID_INPUT failure, shaped as the engine's, for `what` whose reading threw. */
function unreadable(what, err) {
  return { ok: false, code: 'INVALID_INPUT', message: `${unreadableMessage(what, err)}; nothing was written` }
}

module.exports = { failureText, syntaxText, internalError, unreadable, unreadableMessage, errorText, MAX_HINTS }
