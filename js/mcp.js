'use strict'
// The MCP stdio server: the SDK's low-level `Server` answers initialize,
// ping, cancellation and protocol errors; this file registers the tools it is
// started with (a selection from js/tools.js: the `default` profile unless
// told otherwise), answers tools/list and tools/call, and handles shutdown.
//
// What costs the model context is kept to what it needs: a tool is listed
// with its name, title, description, input schema and the annotations that
// differ from the protocol's defaults. Output schemas are listed only when
// asked (`outputSchemas`): the protocol makes them optional, the clients in
// use put no output schema before the model (they validate results with
// them), and one listed obliges every answer to carry the result twice, as
// `structuredContent` and as text. Without them an answer is one compact JSON
// text block, the engine's result object: what every client shows the model,
// less what no listed tool takes (a dry run's run_id where apply_last_dry_run
// is not listed, an undo's own id where undo is not: js/tools.js forSet).
// With them each answer also carries `structuredContent`, and the schemas are
// listed without their descriptions (docs/mcp-cli.md has the figures).
//
// Why the low-level `Server` and not `McpServer.registerTool`: registerTool
// only takes zod schemas (a plain JSON schema throws "inputSchema must be a
// Zod schema or raw shape") and re-derives the JSON schema it lists from
// zod, so the listed inputSchema could not be exactly the `parameters` of
// schemas/<tool>.schema.json. Here tools/list returns those objects as they
// are, and no zod schemas are built at start-up.
//
// Params that do not match a method's schema are answered -32602 naming
// each field (js/invalid-params.js), for every method: the SDK parses a
// request against the handler's schema before the handler runs and answers a
// failure with -32603 and the validator's raw report. Handlers are therefore
// registered (ValidatingServer below) with a schema that only dispatches on
// the method, and the method's own schema is checked first thing in the
// handler, where a failure can be thrown as InvalidParams. tools/call goes
// the same way, past the SDK Server's extra tools/call wrapper, which would
// parse the request a second time and copy every result through its result
// schema (the results here are built by toCallResult, always of that shape).
//
// stdout carries only protocol messages; logs go to stderr.
//
// Every request is answered: a tools/call result too large to carry (over
// PATCH_FILE_MCP_MAX_RESULT_BYTES as a message, or past V8's string limit)
// becomes a RESULT_TOO_LARGE tool error that says how to ask for less. The
// transport (js/stdio-transport.js) keeps the server bounded in memory.
//
// The SDK's Server module loads and builds its JSON-schema validator (ajv),
// which a server uses only to check answers to elicitation requests (never
// sent here): about 30 ms of start-up, paid as the SDK ships it.

const { LineTransport, DEFAULT_MAX_RESULT_BYTES } = require('./stdio-transport.js')
const tools = require('./tools.js')
const engine = require('./engine.js')
const { Workspace } = require('./workspace.js')
const { settingWords } = require('./words.js')

const LEVELS = { silent: 0, error: 1, info: 2, debug: 3 }

/** stderr bytes queued (unread by the client) past which log lines are dropped instead of buffered. */
const STDERR_BACKLOG_BYTES = 1024 * 1024

/** Exit code when the native engine cannot be loaded (the CLI's EXIT.NO_ENGINE too). */
const EXIT_NO_ENGINE = 4

function makeLogger(env = process.env, stream = process.stderr) {
  const level = LEVELS[env.PATCH_FILE_LOG] ?? LEVELS.info
  let dropped = 0
  const out = (lvl) => (msg) => {
    if (LEVELS[lvl] > level) return
    // A client that does not read stderr must not make the server buffer logs without limit.
    if (stream.writableLength > STDERR_BACKLOG_BYTES) {
      dropped++
      return
    }
    const note = dropped ? ` (${dropped} earlier log line${dropped === 1 ? '' : 's'} dropped: stderr was not being read)` : ''
    dropped = 0
    stream.write(`patch-file-tool: ${msg}${note}\n`)
  }
  return { error: out('error'), info: out('info'), debug: out('debug') }
}

/**
 * The answer to a tools/call: the engine's result object as one compact JSON
 * text block, and as `structuredContent` too when `structured` (the tool is
 * listed with an output schema).
 */
function toCallResult(result, { structured = false, text = JSON.stringify(result) } = {}) {
  const answer = { content: [{ type: 'text', text }] }
  if (structured) answer.structuredContent = result
  answer.isError = result.ok !== true
  return answer
}

/**
 * Characters in the strings of `value` (keys included), counting at most up
 * to `stop`: a cheap lower bound of its JSON size, without building it.
 */
function stringChars(value, stop) {
  let total = 0
  const stack = [value]
  while (stack.length && total <= stop) {
    const v = stack.pop()
    if (typeof v === 'string') total += v.length
    else if (v !== null && typeof v === 'object') {
      for (const [k, c] of Object.entries(v)) {
        total += k.length
        if (c !== null && typeof c === 'object') stack.push(c)
        else if (typeof c === 'string') total += c.length
      }
    }
  }
  return total
}

/**
 * The RESULT_TOO_LARGE tool error standing for `result` (the engine's result
 * object), which cannot be carried: what happened (read, dry run, write, or a
 * failure) and how to ask for less. Keeps the small facts that help the next
 * call (file_path, sha256, total_lines, bytes).
 */
function tooLargeResult(result, detail, listed = null) {
  const r = result && typeof result === 'object' ? result : {}
  // Only the listed tools are named (every tool when the caller does not say).
  const has = (name) => listed === null || listed.has(name)
  let message
  if (r.ok === true && typeof r.content === 'string') {
    const ways = []
    if (has('read_file')) ways.push('read_file with offset and limit (e.g. limit: 2000, then offset: next_offset)')
    if (has('str_replace_based_edit_tool')) ways.push('str_replace_based_edit_tool view with a view_range')
    message = `the text read is too large to return (${detail}). Read a part instead: ${ways.join(', or ')}.`
  } else if (r.ok === true && Array.isArray(r.transactions)) {
    message = `the history read wrote nothing, but is too large to return (${detail}). List fewer: history with a smaller limit, or with file_path.`
  } else if (r.ok === true && r.dry_run === true) {
    message = `the dry run wrote nothing, but its preview is too large to return (${detail}). Preview fewer edits or files at a time.`
  } else if (r.ok === true) {
    const check = has('read_file')
      ? 'read_file a line range (offset and limit)'
      : has('str_replace_based_edit_tool')
        ? 'view a line range (str_replace_based_edit_tool view with a view_range)'
        : 'read a line range of the file'
    message =
      `the call succeeded and its changes are written; only its result is too large to return (${detail}). ` +
      `Do not repeat the call: ${check} to check the result.`
  } else {
    const why = typeof r.message === 'string' ? `: ${r.message.slice(0, 500)}` : ''
    message = `the call failed${typeof r.code === 'string' ? ` with ${r.code}` : ''} and wrote nothing; its result is too large to return (${detail})${why}`
  }
  const out = { ok: false, code: 'RESULT_TOO_LARGE', message }
  if (typeof r.file_path === 'string' && r.file_path.length <= 4096) out.file_path = r.file_path
  if (typeof r.sha256 === 'string' && r.sha256.length <= 128) out.sha256 = r.sha256
  for (const k of ['total_lines', 'bytes']) if (Number.isSafeInteger(r[k])) out[k] = r[k]
  return out
}

function limitText(limit) {
  return `the server's limit is ${limit} bytes per message, PATCH_FILE_MCP_MAX_RESULT_BYTES`
}

/**
 * The tools/call answer of `result`, or a RESULT_TOO_LARGE tool error when it
 * certainly cannot be carried within `limit` bytes. The answer holds the
 * result's JSON once, or twice when `structured`, so that many times its JSON
 * length is a lower bound; the transport checks the exact size when sending.
 */
function fitCallResult(result, limit, { structured = false, listed = null } = {}) {
  const copies = structured ? 2 : 1
  const tooLarge = (detail) => toCallResult(tooLargeResult(result, detail, listed), { structured })
  if (result && typeof result === 'object' && result.code === 'RESULT_TOO_LARGE') return toCallResult(result, { structured })
  if (copies * stringChars(result, limit) > limit) return tooLarge(`over ${limit} bytes as an MCP message; ${limitText(limit)}`)
  let text
  try {
    text = JSON.stringify(result)
  } catch (err) {
    return tooLarge(`${err.message}; ${limitText(limit)}`)
  }
  if (copies * text.length > limit) return tooLarge(`over ${limit} bytes as an MCP message; ${limitText(limit)}`)
  return toCallResult(result, { structured, text })
}

/** `schema` without its `description`s: what a lean listing shows. */
function leanSchema(schema) {
  if (Array.isArray(schema)) return schema.map(leanSchema)
  if (schema === null || typeof schema !== 'object') return schema
  const out = {}
  for (const [k, v] of Object.entries(schema)) {
    // A key named `description` inside `properties` is a field, not prose.
    if (k === 'description' && typeof v === 'string') continue
    out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, leanSchema(s)])) : leanSchema(v)
  }
  return out
}

/**
 * The tools/list entry of a tool: inputSchema is the schema file's
 * `parameters`, without the inputs only a tool outside the set takes; outputSchema (only when `outputSchemas`) is the
 * tool's output schema without descriptions, and without the handles no
 * tool of the server's set takes (`set`: js/tools.js forSet).
 */
function toListedTool(tool, { outputSchemas = false, set } = {}) {
  const inputSchema = set ? set.parameters(tool.name, tool.schema.parameters) : tool.schema.parameters
  const listed = { name: tool.name, title: tool.title, description: tool.schema.description, inputSchema }
  if (outputSchemas) listed.outputSchema = leanSchema(set ? set.outputSchema(tool) : tool.outputSchema)
  if (Object.keys(tool.annotations).length) listed.annotations = tool.annotations
  return listed
}

/**
 * The server's instructions (clients put them in the model's context once per
 * session): only what no tool description says, the directory relative paths
 * resolve from and that a failure leaves the files as they were.
 */
function instructions(root) {
  if (root === undefined) return `Workspace roots: the client's. Relative paths resolve from the root they exist under. A failed call changes nothing.`
  return `Workspace root: ${root}. Relative paths resolve from it. A failed call changes nothing.`
}

/** A roots/list result schema (as the SDK reads one: safeParse) that takes any list of roots. */
const ANY_ROOTS = {
  safeParse: (d) =>
    d && typeof d === 'object' && Array.isArray(d.roots)
      ? { success: true, data: d }
      : { success: false, error: new Error('the answer holds no roots array') },
}

/** How long a tool call waits for the answer to a roots/list under way. */
const ROOTS_WAIT_MS = 5000

/** Waits for `promise` at most `ms`; resolves true when it settled in time. */
function waitAtMost(promise, ms) {
  let timer
  const settled = promise.then(
    () => true,
    () => true,
  )
  return Promise.race([settled, new Promise((resolve) => (timer = setTimeout(() => resolve(false), ms)))]).finally(() => clearTimeout(timer))
}

/** How long shutdown waits for a client that reads none of the answers still queued on stdout. */
const STALL_MS = { signal: 5000, eof: 30000 }

/**
 * Serves MCP on stdin/stdout until stdin ends or SIGINT/SIGTERM/SIGHUP, then
 * waits for calls in flight (their writes complete and are answered) and exits 0.
 * @param {{root: string, version: string, given?: string, tools?: object[], outputSchemas?: boolean, results?: 'compact' | 'full', syntax?: 'warn' | 'refuse' | 'off'}} opts
 *   root: the configured workspace root (--root or PATCH_FILE_WORKSPACE_ROOT), already resolved once to its
 *   real path (js/root.js); every call uses this path, so retargeting a symlink named as the root does not
 *   move the server. Undefined: the client's roots (js/workspace.js), and no root without them.
 *   given: the root as configured, for the start-up line.
 *   tools: the tools to list and run (entries of js/tools.js; default: the `default` profile).
 *   outputSchemas: list each tool's output schema and answer with structuredContent too.
 *   results: 'compact' (each fact once, paths relative to the root: what a model reads) or 'full'
 *   (the engine's whole result objects).
 *   syntax: what a parse error an edit introduces does (--syntax; default: PATCH_FILE_SYNTAX, else 'warn').
 */
async function serve({ root, version, given, tools: served = tools.select('default').tools, outputSchemas = false, results = 'compact', syntax }) {
  const log = makeLogger()
  // Load the native engine before anything else (a few ms): on a machine it
  // cannot load on (no prebuilt binary for the platform, or the platform
  // package not installed) the server refuses to start, with the reason on
  // stderr and exit code 4 (EXIT_NO_ENGINE), instead of answering initialize
  // and then failing every call.
  try {
    engine.warm()
  } catch (err) {
    process.stderr.write(`patch-file-tool: the MCP server cannot start.\n${err.message}\n`)
    process.exit(EXIT_NO_ENGINE)
  }
  const { Server } = require('@modelcontextprotocol/sdk/server/index.js')
  const { Protocol } = require('@modelcontextprotocol/sdk/shared/protocol.js')
  const { ListToolsRequestSchema, CallToolRequestSchema, RootsListChangedNotificationSchema, ErrorCode } = require('@modelcontextprotocol/sdk/types.js')
  const { describeIssues } = require('./invalid-params.js')

  /**
   * A JSON-RPC error to throw from a handler: the SDK answers with its code,
   * message and data. Not an McpError, whose message already starts with
   * "MCP error <code>: ": the SDK would send that prefix on the wire, and a
   * client that adds its own (the SDK's does) would show it twice.
   */
  const rpcError = (code, message, data) => Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) })

  /** The SDK's Server, with params checked in the handler (see the top of this file). */
  class ValidatingServer extends Server {
    setRequestHandler(schema, handler) {
      const method = schema.shape.method.value
      const dispatch = schema.pick({ method: true }).loose()
      Protocol.prototype.setRequestHandler.call(this, dispatch, (request, extra) => {
        const r = schema.safeParse(request)
        if (!r.success) {
          const { text, fields } = describeIssues(r.error.issues, request)
          throw rpcError(ErrorCode.InvalidParams, `Invalid params for ${method}: ${text}`, { fields })
        }
        // (With the request as it came: the parse drops a key such as `__proto__`, which the engine refuses.)
        return handler(r.data, extra, request)
      })
    }
  }

  const options = engine.modelOptions({ ...require('./root.js').engineOptions(root), results, ...(syntax ? { syntax } : {}) })
  const workspace = new Workspace({ configured: root })
  const inflight = new Set()
  let stopping = null

  const server = new ValidatingServer(
    { name: 'patch-file-tool', title: 'patch-file-tool', version },
    { capabilities: { tools: {} }, instructions: instructions(root) },
  )
  server.onerror = (err) => log.debug(`protocol: ${err && err.message ? err.message : err}`)

  const byName = new Map(served.map((t) => [t.name, t]))
  const names = new Set(byName.keys())
  // Answers offer no call the served tools cannot make (no run_id without apply_last_dry_run, ...).
  const set = tools.forSet([...byName.keys()])
  const listed = served.map((t) => toListedTool(t, { outputSchemas, set }))
  /** Each answer sent -> the engine's result it carries (for the transport's RESULT_TOO_LARGE replacement). */
  const carried = new WeakMap()

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }))

  // Without a configured root, the client's roots (js/workspace.js): asked for once the
  // client is initialized and again whenever it says they changed.
  let rootsAsked = null
  // Each ask is numbered: answers can arrive out of order (a client that
  // changes its roots twice quickly), and only the newest ask's answer says
  // what the roots are now; an older one arriving last is dropped.
  let asks = 0
  let waitedInVain = null
  const askRoots = () => {
    const n = ++asks
    // Asked with a schema that takes any list: the SDK's refuses the whole
    // answer for one root that is not a file:// URI, and each root is
    // judged on its own (workspace.setClientRoots leaves such a one out).
    const asking = server
      .request({ method: 'roots/list' }, ANY_ROOTS)
      .then(({ roots }) => {
        if (n !== asks) return log.info(`dropped an answer to an earlier roots/list (${roots.length} roots): a newer one was asked for`)
        for (const w of workspace.setClientRoots(roots)) log.info(w)
        log.info(`workspace roots (the client's): ${workspace.roots.join(', ') || 'none'}`)
      })
      .catch((err) => {
        if (n !== asks) return
        workspace.setClientRoots([])
        log.error(`roots/list failed (${err && err.message ? err.message : err}); no workspace root`)
      })
      .finally(() => {
        if (rootsAsked === asking) rootsAsked = null
      })
    rootsAsked = asking
    return asking
  }
  if (root === undefined) {
    server.oninitialized = () => {
      if (server.getClientCapabilities()?.roots) askRoots()
      else log.info('the client has no roots capability and no workspace root is configured: every tool call is refused')
    }
    server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
      if (server.getClientCapabilities()?.roots) askRoots()
    })
  }

  server.setRequestHandler(CallToolRequestSchema, async (request, extra, sent) => {
    const { name } = request.params
    // The arguments as sent: every key reaches the engine, which refuses an unknown one.
    const args = sent.params.arguments
    const tool = byName.get(name)
    if (!tool) {
      const hint = tools.get(name) ? ` (${name} is not enabled: add it to --tools or PATCH_FILE_TOOLS)` : ''
      // The caller's name is quoted cut to 64 characters, as every value the server echoes.
      const shown = typeof name === 'string' && name.length > 64 ? `${name.slice(0, 64)}…` : name
      throw rpcError(ErrorCode.InvalidParams, `Unknown tool: ${shown}${hint}. Tools: ${[...byName.keys()].join(', ')}`)
    }
    log.debug(`call ${name} (request ${transport.idText(extra.requestId)})`)
    const call = (async () => {
      // The client's roots, when they are being asked for, are known before a call runs; but a call waits
      // at most ROOTS_WAIT_MS (then runs with the roots known so far), since a client that sends
      // maxInFlight calls before it answers roots/list pauses the reading of that answer.
      // A roots/list one call already waited for in vain is not waited for again (a client that never
      // answers would cost every call ROOTS_WAIT_MS).
      if (rootsAsked && rootsAsked !== waitedInVain) {
        const asked = rootsAsked
        if (!(await waitAtMost(asked, ROOTS_WAIT_MS))) waitedInVain = asked
      }
      // A call cancelled before it started writes nothing; one cancelled while it runs
      // (notifications/cancelled) stops before its commit (CANCELLED, nothing written);
      // a commit already under way completes (writes are atomic).
      if (extra.signal.aborted) return null
      try {
        const where = workspace.route(tool, args)
        if (where.refusal) return where.refusal
        const result = await engine.run(tool, set.args(name, args), { ...options, workspaceRoot: where.root, signal: extra.signal })
        workspace.ran(where.root, result)
        // The set's answers name its tools (forSet); the server's, its configuration.
        const shown = settingWords(set.result(result))
        // With several roots, a call that named no path (undo, history) says which root it ran in.
        if (where.implicit && shown && typeof shown === 'object') shown.workspace_root = where.root
        return shown
      } catch (err) {
        log.error(`${name}: ${err.stack || err}`)
        return { ok: false, code: 'INTERNAL_ERROR', message: `internal error (${err.message}); nothing was written` }
      }
    })()
    inflight.add(call)
    // While maxInFlight calls run (cancelled ones included), no further request is read.
    transport.hold(call)
    let result
    try {
      result = await call
    } finally {
      inflight.delete(call)
    }
    if (result === null) throw rpcError(ErrorCode.RequestTimeout, 'Request cancelled before it started')
    const answer = fitCallResult(result, maxResultBytes, { structured: outputSchemas, listed: names })
    carried.set(answer, result)
    log.debug(`done ${name} (request ${transport.idText(extra.requestId)}): ${answer.isError ? (result && result.code) || 'failed' : 'ok'}`)
    return answer
  })

  const maxMessageBytes = Number(process.env.PATCH_FILE_MCP_MAX_MESSAGE_BYTES) || undefined
  const maxResultBytes = Number(process.env.PATCH_FILE_MCP_MAX_RESULT_BYTES) || DEFAULT_MAX_RESULT_BYTES
  const transport = new LineTransport({
    maxMessageBytes,
    maxResultBytes,
    log: (level, msg) => log[level](msg),
    // An answer the transport cannot send: a tools/call result becomes a RESULT_TOO_LARGE tool error.
    tooLarge: (message, { method, reason, limit }) => {
      if (method !== 'tools/call' || !message.result) return undefined
      const result = carried.get(message.result)
      const replacement = toCallResult(tooLargeResult(result, `${reason}; ${limitText(limit)}`, names), { structured: outputSchemas })
      return { jsonrpc: '2.0', id: message.id, result: replacement }
    },
    onEnd: () => shutdown('stdin closed'),
  })

  /** Resolves true once stdout is flushed, or false when it made no progress for `stallMs` (nobody reads it). */
  function flushWithin(stallMs) {
    const out = process.stdout
    return new Promise((resolve) => {
      let last = out.writableLength
      let lastChange = Date.now()
      const timer = setInterval(() => {
        const now = out.writableLength
        if (now !== last) {
          last = now
          lastChange = Date.now()
        } else if (Date.now() - lastChange >= stallMs) {
          clearInterval(timer)
          resolve(false)
        }
      }, 100)
      transport.flush().then(() => {
        clearInterval(timer)
        resolve(true)
      })
    })
  }

  function shutdown(reason, stallMs = STALL_MS.eof) {
    if (stopping) return stopping
    log.debug(`shutting down: ${reason}; ${inflight.size} call(s) in flight`)
    transport.stopReading()
    stopping = (async () => {
      // Requests read just before the end reach their handlers in a later
      // microtask; let them register before looking at what is in flight.
      await new Promise((r) => setImmediate(r))
      // Finish every call in flight; the SDK sends each answer as it settles.
      while (inflight.size > 0) await Promise.allSettled([...inflight])
      await new Promise((r) => setImmediate(r))
      if (!(await flushWithin(stallMs))) {
        log.error(
          `stdout was not read for ${stallMs / 1000} s; exiting with ${process.stdout.writableLength} bytes of answers unsent`,
        )
      }
      process.exit(0)
    })()
    return stopping
  }

  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => shutdown(sig, STALL_MS.signal))

  await server.connect(transport)
  const as = given !== undefined && given !== root ? ` (given as ${given})` : ''
  const where = root === undefined ? "the client's roots" : `${root}${as}`
  log.info(`MCP server ${version} on stdio; workspace root ${where}; tools ${[...byName.keys()].join(', ')}`)
}

module.exports = { serve, toCallResult, toListedTool, leanSchema, instructions, fitCallResult, tooLargeResult, makeLogger, EXIT_NO_ENGINE }
