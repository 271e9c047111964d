'use strict'
// Newline-delimited JSON-RPC over stdin/stdout for the MCP SDK's `Server`
// (the SDK's Transport interface: start, send, close, onmessage, onerror,
// onclose). Everything above framing — initialize and version negotiation,
// ping, cancellation, method dispatch and JSON-RPC errors for requests — is the
// SDK's Protocol/Server; this file frames messages and keeps the server
// bounded whatever the client sends or fails to read.
//
// Why not the SDK's StdioServerTransport: on a line that is not JSON or not a
// JSON-RPC message it only calls onerror and sends no response, so a client
// waits forever; and when its buffer passes 10 MiB it closes the connection.
// Here a malformed line is answered with a JSON-RPC error (-32700 parse error,
// -32600 invalid request) and reading goes on. Lines are gathered as a chunk
// list and joined once, so a large message costs linear time.
//
// Bounded under any input:
//
// - Back-pressure. Lines are taken from stdin only while stdout is not
//   congested (the last write did not return false, or 'drain' came since)
//   and fewer than `maxInFlight` requests are unanswered (and fewer than
//   `maxInFlight` calls held by the server via hold(), which covers cancelled
//   calls that still run). Otherwise stdin is paused: a client that does not
//   read stdout simply stops being read, and the server holds at most one
//   chunk of unread input, one partial line and `maxInFlight` answers
//   (`maxInFlight` - 1 + `maxBatch` when the last line read was a batch).
// - Oversized lines (over `maxMessageBytes`) are skipped up to their newline,
//   keeping only their first 4 KiB and last 256 bytes, and answered with
//   -32600 carrying the request's id when it can be read from there: a
//   top-level "id" member within the first 4 KiB, or as the line's last
//   member (where the SDK's client writes it). A line that is not JSON gets
//   its id the same way.
// - Width. A line with more than MAX_VALUES JSON values (the engine's limit
//   per call) is answered -32600 with its id and never parsed: parsed, it
//   could take ~40 times its size in memory.
// - Nesting. A message nested deeper than MAX_DEPTH levels never reaches the
//   SDK (whose error paths JSON.stringify it recursively and overflow the
//   stack): a request gets -32600 with its id, a response or notification is
//   dropped with a log line. Anything the SDK throws while taking a message
//   is caught the same way: a request is answered -32603, anything else is
//   dropped and logged.
// - Answers too large to send (over `maxResultBytes`, or past V8's string
//   limit) go through the `tooLarge` hook, which may replace them (the server
//   turns a tools/call result into a RESULT_TOO_LARGE tool error); otherwise
//   they become a -32603 error. Every request read is answered.
// - A last line without a newline at EOF is processed like any other.
//
// Batches (a JSON array of messages on one line, which the SDK's
// StdioServerTransport cannot parse either): protocol 2025-03-26 requires a
// server to take them, 2025-06-18 removed them. The version is the one the
// server answered to initialize, seen here as that answer goes out. Under
// 2025-03-26 each member is taken as a line of its own would be (every check
// above applies to each; the size and width limits to the whole line), and
// the answers to its requests are written together, one JSON array on one
// line, in the members' order, once every request in it is answered: no
// entry for a notification, a response or a cancelled request, and no line
// when that leaves none (JSON-RPC 2.0, section 6). A batch holds at most
// `maxBatch` messages (default `maxInFlight`) and its answer at most
// `maxResultBytes` in all: an answer that does not fit in what is left goes
// through `tooLarge` as a line's would. Its requests count as unanswered
// until the batch's answer is written, so back-pressure holds. Answers are
// routed by id, so a member may not take the id of a request in flight, nor
// a line the id of a batch member, and initialize may not be a member
// (-32600 each). An empty batch, one over the limit, one before initialize
// and any batch under another version get one -32600 with id null, and none
// of it is run.
//
// A line that is not valid UTF-8 is refused with -32700 (JSON text is UTF-8)
// and never reaches a tool: decoding it leniently would turn each bad byte
// into U+FFFD, which a tool would then match or write into a file.
//
// A message that is JSON but not one the server takes is answered with the
// field at fault named (js/invalid-params.js): -32600 for the envelope
// (jsonrpc, method, id, params that is not an object), -32602 for a
// request's params (an array, or a field of the wrong type).
//
// Request ids are answered exactly as sent. JSON.parse reads every number as
// a double, so an integer id past 2^53 (MCP allows any integer) would come
// back as another number, and `1e3` or `-0` in another spelling. A numeric
// id whose text is not what JSON.stringify gives for its value is carried
// through the SDK as a surrogate string (a per-process random tag plus the
// id's exact text) and written back as that text. Finding the text costs
// little where clients put the id: the SDK's client writes it last (a regex
// on the last 256 bytes), others near the start (a scan of at most 4 KiB);
// only an id that is not a safe integer and lies elsewhere costs one scan of
// the line, which skips strings with indexOf. A cancellation
// (notifications/cancelled) names its request the same way.

const crypto = require('node:crypto')
const { JSONRPCMessageSchema, JSONRPCRequestSchema, JSONRPCNotificationSchema, ErrorCode } = require('@modelcontextprotocol/sdk/types.js')
const { describeIssues, what } = require('./invalid-params.js')

/** Largest accepted message (one line), in bytes. write_file content travels inside one. */
const DEFAULT_MAX_MESSAGE_BYTES = 128 * 1024 * 1024
/** Largest message written, in bytes (a tools/call result is carried twice: structured and as text). */
const DEFAULT_MAX_RESULT_BYTES = 128 * 1024 * 1024
/** Requests read but not answered yet, at most. */
const DEFAULT_MAX_IN_FLIGHT = 16
/** The protocol versions that have JSON-RPC batches: 2025-03-26 added them, 2025-06-18 removed them. */
const BATCH_VERSIONS = new Set(['2025-03-26'])
/** Deepest nesting of objects and arrays in a message. Tool arguments may nest 64 levels (the engine's limit). */
const MAX_DEPTH = 128
/**
 * Most JSON values in one message: the engine's limit for one call (4,000,000
 * values) plus room for the envelope. Checked before parsing, since V8 objects
 * take up to ~40 times the bytes of their JSON (a 120 MiB line of `{},` peaked
 * at 4.9 GB): a line with more is refused without being parsed.
 */
const MAX_VALUES = 4_000_000 + 1024
/** Bytes kept from the start and the end of an oversized line, to find its id. */
const ID_HEAD_BYTES = 4096
const ID_TAIL_BYTES = 256

/** A JSON number token, exactly (RFC 8259). */
const NUMBER_TOKEN = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/** Strict UTF-8: throws on invalid bytes instead of writing U+FFFD; keeps a BOM (like Buffer#toString). */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

class LineTransport {
  /**
   * @param {{
   *   stdin?: NodeJS.ReadableStream, stdout?: NodeJS.WritableStream,
   *   maxMessageBytes?: number, maxResultBytes?: number, maxInFlight?: number, maxBatch?: number,
   *   tooLarge?: (message: object, info: {method?: string, reason: string, limit: number}) => object | undefined,
   *   log?: (level: 'error'|'info'|'debug', message: string) => void,
   *   onEnd?: () => void,
   * }} opts
   *   tooLarge: called for an answer that cannot be sent (too large, or not serializable);
   *     returns the answer to send instead (for the same id), or undefined for a -32603 error.
   *   onEnd: called once when stdin ends (after its last line is taken) or fails (the client went away).
   *   maxBatch: most messages in one batch (default: maxInFlight).
   */
  constructor(opts = {}) {
    this._in = opts.stdin || process.stdin
    this._out = opts.stdout || process.stdout
    this._max = opts.maxMessageBytes || DEFAULT_MAX_MESSAGE_BYTES
    this._maxOut = opts.maxResultBytes || DEFAULT_MAX_RESULT_BYTES
    this._maxInFlight = opts.maxInFlight || DEFAULT_MAX_IN_FLIGHT
    this._maxBatch = opts.maxBatch || this._maxInFlight
    this._tooLarge = opts.tooLarge
    this._log = opts.log || (() => {})
    this._onEnd = opts.onEnd
    // Prefix of the surrogate ids that stand for numeric ids a JS number cannot
    // carry exactly; random, so that no client's own string id can pass for one.
    this._idTag = `\u0000pft-id:${crypto.randomBytes(8).toString('hex')}:`
    // The line being gathered.
    this._parts = []
    this._size = 0
    this._skipping = false
    this._head = null
    this._tail = null
    // Flow.
    this._backlog = [] // chunks read from stdin, not framed yet
    this._inEnded = false
    this._inputDone = false
    this._pending = new Map() // key(id) -> method of each request handed on and not answered (a batch member: until its batch's answer is written)
    this._batchOf = new Map() // key(id) -> {batch, index} of each request of a batch whose answer is not written yet
    this._protocolVersion = undefined // as answered to initialize
    this._held = 0
    this._congested = false
    this._pumping = false
    this._reading = false
    this._closed = false
    this._lastWrite = Promise.resolve()
    this._ondata = (chunk) => {
      this._backlog.push(chunk)
      this._pump()
    }
    this._onend = () => {
      this._inEnded = true
      this._pump()
    }
    this._ondrain = () => {
      this._congested = false
      this._pump()
    }
    this._onInError = (err) => {
      this.onerror?.(err)
      this._ended()
    }
    this._onOutError = (err) => {
      // EPIPE and friends: the client is gone; nothing more can be sent.
      this._outBroken = true
      this._congested = false
      this.onerror?.(err)
      this._ended()
    }
    this.onmessage = undefined
    this.onerror = undefined
    this.onclose = undefined
  }

  async start() {
    if (this._reading) throw new Error('LineTransport already started')
    this._reading = true
    this._in.on('data', this._ondata)
    this._in.on('end', this._onend)
    this._in.on('error', this._onInError)
    this._out.on('error', this._onOutError)
    this._out.on('drain', this._ondrain)
    this._in.resume()
  }

  /** Stops reading stdin (lines read but not taken yet are dropped); sending still works (for answers to calls in flight). */
  stopReading() {
    if (!this._reading) return
    this._reading = false
    this._in.off('data', this._ondata)
    this._in.off('end', this._onend)
    this._in.pause()
    // Let the process exit without waiting on stdin.
    if (typeof this._in.unref === 'function') this._in.unref()
    this._backlog = []
    this._parts = []
    this._size = 0
    this._skipping = false
    this._head = this._tail = null
  }

  /**
   * Counts `promise` as work in flight until it settles: while `maxInFlight`
   * are held no further line is read (a cancelled call is no longer an
   * unanswered request, but it may still run).
   */
  hold(promise) {
    this._held++
    const done = () => {
      this._held--
      this._pump()
    }
    promise.then(done, done)
    return promise
  }

  /** Requests read and not answered yet (for tests and logs). */
  get inFlight() {
    return this._pending.size
  }

  _ended() {
    if (this._endSeen) return
    this._endSeen = true
    this._onEnd?.()
  }

  _canRead() {
    return this._reading && !this._congested && this._pending.size < this._maxInFlight && this._held < this._maxInFlight
  }

  /** Takes lines from the backlog while reading is allowed; pauses stdin otherwise. */
  _pump() {
    if (this._pumping) return // the running loop re-checks after each line
    this._pumping = true
    try {
      while (this._canRead()) {
        if (this._backlog.length === 0) {
          if (this._inEnded) this._finishInput()
          break
        }
        const chunk = this._backlog[0]
        const nl = chunk.indexOf(10)
        if (nl === -1) {
          this._backlog.shift()
          this._take(chunk)
          continue
        }
        this._take(chunk.subarray(0, nl))
        if (nl + 1 < chunk.length) this._backlog[0] = chunk.subarray(nl + 1)
        else this._backlog.shift()
        this._endLine()
      }
    } finally {
      this._pumping = false
    }
    if (!this._reading) return
    if (this._backlog.length === 0 && this._canRead()) this._in.resume()
    else this._in.pause()
  }

  /** stdin ended and every chunk is taken: a last line without a newline is a line too. */
  _finishInput() {
    if (this._inputDone) return
    this._inputDone = true
    if (this._skipping || this._size > 0) this._endLine()
    this._ended()
  }

  _take(part) {
    if (part.length === 0) return
    if (this._skipping) {
      this._keepTail(part)
      return
    }
    if (this._size + part.length > this._max) {
      // Too large: keep the line's first bytes and, from now on, its last ones (to find its id).
      const parts = [...this._parts, part]
      const head = []
      let n = 0
      for (const p of parts) {
        if (n >= ID_HEAD_BYTES) break
        const take = p.subarray(0, ID_HEAD_BYTES - n)
        head.push(take)
        n += take.length
      }
      this._head = Buffer.concat(head, n)
      this._tail = null
      this._keepTail(part)
      this._skipping = true
      this._parts = []
      this._size = 0
      return
    }
    this._parts.push(part)
    this._size += part.length
  }

  _keepTail(part) {
    const end = part.subarray(-ID_TAIL_BYTES)
    const joined = this._tail ? Buffer.concat([this._tail, end]) : end
    this._tail = Buffer.from(joined.subarray(-ID_TAIL_BYTES))
  }

  _endLine() {
    const skipped = this._skipping
    const head = this._head
    const tail = this._tail
    const line = skipped ? null : this._parts.length === 1 ? this._parts[0] : Buffer.concat(this._parts, this._size)
    this._parts = []
    this._size = 0
    this._skipping = false
    this._head = this._tail = null
    if (skipped) {
      const id = this._idFromToken(idTokenFromStart(head.toString('utf8')) ?? idTokenFromEnd(tail.toString('utf8')))
      this._reject(
        ErrorCode.InvalidRequest,
        `Invalid Request: message larger than ${this._max} bytes (the server's limit, PATCH_FILE_MCP_MAX_MESSAGE_BYTES); it was skipped and not run`,
        id === undefined ? null : id,
      )
      this._log('info', `skipped a message larger than ${this._max} bytes${id === undefined ? '' : ` (request ${this.idText(id)})`}`)
      return
    }
    this._line(line)
  }

  _line(buf) {
    // Each value takes at least 2 bytes (`0,`), so only a long line can hold too many.
    if (buf.length > 2 * MAX_VALUES && countValues(buf, MAX_VALUES) > MAX_VALUES) {
      const id = this._idFromToken(
        idTokenFromStart(buf.subarray(0, ID_HEAD_BYTES).toString('utf8')) ?? idTokenFromEnd(buf.subarray(-ID_TAIL_BYTES).toString('utf8')),
      )
      this._reject(
        ErrorCode.InvalidRequest,
        `Invalid Request: the message holds more than ${MAX_VALUES} JSON values (a tool call takes at most 4000000); it was not run`,
        id === undefined ? null : id,
      )
      this._log('info', `refused a message of more than ${MAX_VALUES} JSON values${id === undefined ? '' : ` (request ${this.idText(id)})`}`)
      return
    }
    let text
    try {
      text = UTF8.decode(buf)
    } catch {
      const id = this._lenientId(buf)
      this._reject(ErrorCode.ParseError, 'Parse error: the message is not valid UTF-8 (JSON text must be UTF-8); it was not run', id)
      this.onerror?.(new Error(`message${id === null ? '' : ` ${this.idText(id)}`} is not valid UTF-8`))
      return
    }
    if (text.endsWith('\r')) text = text.slice(0, -1)
    if (text.trim() === '') return
    let value
    try {
      value = JSON.parse(text)
    } catch (err) {
      const id = this._idFromToken(idTokenFromStart(text.length > ID_HEAD_BYTES ? text.slice(0, ID_HEAD_BYTES) : text))
      this._reject(ErrorCode.ParseError, `Parse error: ${err.message}`, id === undefined ? null : id)
      this.onerror?.(err)
      return
    }
    if (Array.isArray(value)) {
      this._batch(text, value)
      return
    }
    this._message(text, value, null)
  }

  /**
   * Takes one parsed message: `text` is its JSON text (for the exact text of
   * a numeric id), `batch` the batch it is a member of, or null for a line of
   * its own. Requests go on to the SDK; what the server refuses is answered
   * here (in the batch's answer for a member).
   */
  _message(text, value, batch) {
    const isObject = isPlainObject(value)
    // A numeric id whose text a JS number does not give back: carried as a surrogate.
    let fractionalId
    if (isObject && typeof value.id === 'number') {
      const raw = numericIdText(text, value.id) ?? (Number.isSafeInteger(value.id) ? undefined : JSON.stringify(value.id))
      if (raw !== undefined) {
        value.id = this._surrogate(raw)
        if (!isIntegerText(raw)) fractionalId = raw
      }
    }
    if (isObject && value.method === 'notifications/cancelled' && isPlainObject(value.params) && typeof value.params.requestId === 'number') {
      const requestId = value.params.requestId
      const raw = rawValueAt(text, ['params', 'requestId'])
      if (raw !== undefined && (raw !== JSON.stringify(requestId) || !Number.isSafeInteger(requestId))) value.params.requestId = this._surrogate(raw)
    }
    const id = isObject && validId(value.id) ? value.id : null
    const isRequest = isObject && typeof value.method === 'string' && id !== null
    if (nestedDeeperThan(value, MAX_DEPTH)) {
      if (isRequest) {
        this._reject(ErrorCode.InvalidRequest, `Invalid Request: the message is nested deeper than ${MAX_DEPTH} levels; it was not run`, id, undefined, batch)
      } else {
        const desc = isObject && typeof value.method === 'string' ? `notification ${value.method}` : `message${id === null ? '' : ` with id ${this.idText(id)}`}`
        this._log('info', `dropped a ${desc} nested deeper than ${MAX_DEPTH} levels`)
      }
      return
    }
    let parsed = { success: false }
    if (fractionalId === undefined) {
      try {
        parsed = JSONRPCMessageSchema.safeParse(value)
      } catch {
        parsed = { success: false }
      }
    }
    if (!parsed.success) {
      let bad
      try {
        bad = invalidMessage(value, fractionalId)
      } catch {
        bad = { code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 message' }
      }
      this._reject(bad.code, bad.message, id, bad.data, batch)
      this.onerror?.(new Error(`invalid JSON-RPC message: ${bad.message}`))
      return
    }
    const message = parsed.data
    const k = isRequest ? key(id) : undefined
    if (isRequest) {
      // An answer is routed by its id: a batch member's id must not be one in flight, nor a line's the id of a batch member.
      const refusal = batch
        ? message.method === 'initialize'
          ? 'initialize must not be part of a batch'
          : this._pending.has(k) && `id ${this.idText(id)} is already used by a request not answered yet; give each request in flight its own id`
        : this._batchOf.has(k) && `id ${this.idText(id)} is already used by a request of a batch not answered yet; give each request in flight its own id`
      if (refusal) {
        this._reject(ErrorCode.InvalidRequest, `Invalid Request: ${refusal}; it was not run`, id, undefined, batch)
        return
      }
      this._pending.set(k, message.method)
      if (batch) {
        this._batchOf.set(k, { batch, index: batch.slots.push(undefined) - 1 })
        batch.keys.push(k)
        batch.waiting++
      }
    }
    try {
      this.onmessage?.(message)
    } catch (err) {
      const why = err && err.message ? err.message : String(err)
      if (isRequest) {
        this._log('info', `request ${this.idText(id)} (${message.method}) could not be taken: ${why}; answered with -32603`)
        const error = { code: ErrorCode.InternalError, message: `Internal error: the request could not be taken (${why}); it was not run` }
        const member = this._batchOf.get(k)
        if (member) this._answerMember(member, { jsonrpc: '2.0', id, error })
        else {
          if (this._pending.delete(k)) this._pump()
          this._reject(error.code, error.message, id)
        }
      } else {
        this._log('info', `dropped a message${id === null ? '' : ` with id ${this.idText(id)}`}: ${why}`)
      }
    }
    // A cancelled request gets no answer: it no longer counts as unanswered
    // (the server's hold() keeps counting the call while it still runs), and
    // a batch member gets no entry in its batch's answer.
    if (message.method === 'notifications/cancelled' && message.params && validId(message.params.requestId)) {
      const cancelled = key(message.params.requestId)
      const member = this._batchOf.get(cancelled)
      if (member) this._cancelMember(member)
      else if (this._pending.delete(cancelled)) this._pump()
    }
  }

  /**
   * A line holding a JSON array: a JSON-RPC batch. Taken only when the
   * protocol version negotiated at initialize has batches (2025-03-26);
   * otherwise, and when empty or over the size limit, refused with one
   * -32600 (id null) and none of it run. Each member is taken as a line of
   * its own would be; the answers to its requests are gathered and written
   * as one JSON array once every one is answered (JSON-RPC 2.0 section 6).
   */
  _batch(text, members) {
    const refuse = (why) => {
      this._reject(ErrorCode.InvalidRequest, `Invalid Request: ${why}`, null)
      this._log('info', `refused a batch of ${members.length} message${members.length === 1 ? '' : 's'}: ${why}`)
    }
    const version = this._protocolVersion
    if (version === undefined) {
      return refuse(
        `a batch (a JSON array of messages) is taken only after initialize, and only when it negotiated protocol version ${[...BATCH_VERSIONS].join(', ')}; none of it was run`,
      )
    }
    if (!BATCH_VERSIONS.has(version)) {
      return refuse(
        `protocol version ${version} has no JSON-RPC batches (only ${[...BATCH_VERSIONS].join(', ')} has them); send one message per line. None of it was run`,
      )
    }
    if (members.length === 0) return refuse('an empty batch; a batch holds at least one message')
    if (members.length > this._maxBatch) {
      return refuse(
        `a batch holds at most ${this._maxBatch} messages (the server's limit of requests in flight); this one holds ${members.length}. None of it was run; send fewer per batch`,
      )
    }
    // Each member's own JSON text, for the exact text of its numeric ids.
    const texts = arrayItems(text)
    const batch = { slots: [], keys: [], waiting: 0, bytes: 1, open: true, written: false, resolve: null, promise: null }
    batch.promise = new Promise((resolve) => (batch.resolve = resolve))
    for (let i = 0; i < members.length; i++) {
      this._message(texts && texts.length === members.length ? texts[i] : JSON.stringify(members[i]), members[i], batch)
    }
    batch.open = false
    this._settleBatch(batch)
  }

  /** The answer `message` to the batch member `member` ({batch, index}); resolves when the batch's answer is written. */
  _answerMember({ batch, index }, message) {
    const slot = batch.slots[index]
    if (typeof slot === 'string' || batch.written) return batch.promise
    if (slot === undefined) batch.waiting--
    this._entry(batch, index, message, true)
    this._settleBatch(batch)
    return batch.promise
  }

  /** A batch member cancelled before its answer: no entry for it. */
  _cancelMember({ batch, index }) {
    if (batch.slots[index] !== undefined || batch.written) return
    batch.slots[index] = null
    batch.waiting--
    this._settleBatch(batch)
  }

  /**
   * Puts `message` in slot `index` of `batch`'s answer, within what is left
   * of the result limit for the whole answer: an answer that does not fit is
   * replaced as a line's would be (the tooLarge hook, else a -32603 error).
   */
  _entry(batch, index, message, isAnswer) {
    const left = Math.max(0, this._maxOut - batch.bytes - 1)
    const line = this._serialize(message, isAnswer, left, true)
    batch.slots[index] = line
    if (line !== null) batch.bytes += Buffer.byteLength(line) + 1
  }

  /** Writes `batch`'s answer once every member is read and every request in it answered (nothing when no entry). */
  _settleBatch(batch) {
    if (batch.open || batch.waiting > 0 || batch.written) return
    batch.written = true
    for (const k of batch.keys) {
      this._pending.delete(k)
      this._batchOf.delete(k)
    }
    const entries = batch.slots.filter((s) => typeof s === 'string')
    let p = Promise.resolve()
    if (entries.length > 0 && !this._closed && !this._outBroken) {
      // One line, written in parts: the entries are never joined into one more string.
      p = new Promise((resolve) => {
        let ok = true
        for (let i = 0; i < entries.length; i++) ok = this._out.write((i === 0 ? '[' : ',') + entries[i]) && ok
        ok = this._out.write(']\n', () => resolve()) && ok
        if (!ok) this._congested = true
      })
      this._lastWrite = p
    }
    batch.resolve(p)
    this._pump()
  }

  /** Answers with a JSON-RPC error the server gives itself: on a line of its own, or as an entry of `batch`'s answer. */
  _reject(code, message, id, data, batch = null) {
    const error = data === undefined ? { code, message } : { code, message, data }
    const answer = { jsonrpc: '2.0', id, error }
    if (batch) this._entry(batch, batch.slots.push(undefined) - 1, answer, validId(id))
    else this._write(answer, validId(id))
  }

  /** The surrogate id standing for the numeric id whose exact JSON text is `raw`. */
  _surrogate(raw) {
    return this._idTag + raw
  }

  /** The exact JSON text a surrogate id stands for, or undefined for any other id. */
  _rawText(id) {
    if (typeof id !== 'string' || !id.startsWith(this._idTag)) return undefined
    const raw = id.slice(this._idTag.length)
    // Only a number token is ever written back as raw text.
    return NUMBER_TOKEN.test(raw) ? raw : undefined
  }

  /** An id as the client wrote it, for log lines. */
  idText(id) {
    return this._rawText(id) ?? JSON.stringify(id)
  }

  /** The id a raw token stands for (a string, a number, or a surrogate), or undefined. */
  _idFromToken(token) {
    if (token === undefined) return undefined
    if (token[0] === '"') {
      let v
      try {
        v = JSON.parse(token)
      } catch {
        return undefined
      }
      // U+FFFD may stand for a byte cut off or not UTF-8: not the client's id.
      return v.includes('\uFFFD') ? undefined : v
    }
    if (!NUMBER_TOKEN.test(token)) return undefined
    const v = Number(token)
    return Number.isSafeInteger(v) && JSON.stringify(v) === token ? v : this._surrogate(token)
  }

  /**
   * The request id of a line that is not valid UTF-8, for its error answer:
   * read from a lenient decoding, used only when it is a number or a string
   * without U+FFFD (which might stand for a bad byte); else null.
   */
  _lenientId(buf) {
    const text = buf.toString('utf8')
    let value
    try {
      value = JSON.parse(text)
    } catch {
      return null
    }
    const id = isPlainObject(value) ? value.id : undefined
    if (typeof id === 'number') {
      const raw = numericIdText(text, id) ?? (Number.isSafeInteger(id) ? undefined : JSON.stringify(id))
      return raw === undefined ? id : this._surrogate(raw)
    }
    if (typeof id === 'string' && !id.includes('\uFFFD')) return id
    return null
  }

  /** JSON text of `message`; a surrogate id is written as the exact text it stands for. */
  _stringify(message) {
    const raw = message !== null && typeof message === 'object' ? this._rawText(message.id) : undefined
    if (raw === undefined) return JSON.stringify(message)
    const { id, ...rest } = message
    const body = JSON.stringify(rest)
    return body === '{}' ? `{"id":${raw}}` : `{"id":${raw},${body.slice(1)}`
  }

  /**
   * Sends one message (the SDK's answers, and its notifications and
   * requests): written as a line of its own, or, for the answer to a batch
   * member, kept for its batch's answer. Resolves once it is handed to the OS
   * (or stdout broke). Never throws.
   */
  send(message) {
    if (this._closed || this._outBroken) return Promise.resolve()
    const isAnswer = message && typeof message === 'object' && message.method === undefined && validId(message.id)
    if (isAnswer) {
      const k = key(message.id)
      const member = this._batchOf.get(k)
      if (member) return this._answerMember(member, message)
      // The protocol version initialize negotiated: whether batches are taken.
      if (this._pending.get(k) === 'initialize' && message.result && typeof message.result.protocolVersion === 'string') {
        this._protocolVersion = message.result.protocolVersion
      }
    }
    const p = this._write(message, isAnswer)
    if (isAnswer && this._pending.delete(key(message.id))) this._pump()
    return p
  }

  /** Writes one message as a line; resolves once it is handed to the OS. */
  _write(message, isAnswer) {
    if (this._closed || this._outBroken) return Promise.resolve()
    const line = this._serialize(message, isAnswer)
    if (line === null) return Promise.resolve()
    const p = new Promise((resolve) => {
      const ok = this._out.write(line + '\n', () => resolve())
      if (!ok) this._congested = true
    })
    this._lastWrite = p
    return p
  }

  /**
   * The message as JSON within `limit` bytes (the result limit for a line;
   * what is left of it for an entry of a batch's answer); for an answer that
   * cannot be, its replacement; null to drop.
   */
  _serialize(message, isAnswer, limit = this._maxOut, inBatch = false) {
    const fits = (text) => text.length <= limit / 3 || Buffer.byteLength(text) <= limit
    let line
    let reason
    try {
      line = this._stringify(message)
    } catch (err) {
      reason = err && err.message ? err.message : String(err)
    }
    if (line !== undefined && !fits(line)) {
      const bytes = Buffer.byteLength(line)
      reason = inBatch
        ? `${bytes} bytes, over the ${limit} bytes left for it in its batch's answer (one message, of at most ${this._maxOut} bytes)`
        : `${bytes} bytes, over the limit of ${this._maxOut} bytes`
      line = undefined
    }
    if (line !== undefined) return line
    if (!isAnswer) {
      this._log('error', `could not send a ${message && message.method} message (${reason}); dropped`)
      return null
    }
    const method = this._pending.get(key(message.id))
    let replacement
    try {
      replacement = this._tooLarge?.(message, { method, reason, limit: this._maxOut })
      if (replacement) line = this._stringify(replacement)
      if (line !== undefined && !fits(line)) line = undefined
    } catch {
      line = undefined
    }
    if (line === undefined) {
      line = this._stringify({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: ErrorCode.InternalError, message: `Internal error: the response is too large to send (${reason}); ask for less` },
      })
    }
    this._log('info', `the answer to request ${this.idText(message.id)}${method ? ` (${method})` : ''} could not be sent (${reason}); sent an error instead`)
    return line
  }

  /** Resolves when every message sent so far is written. */
  flush() {
    return this._lastWrite
  }

  async close() {
    if (this._closed) return
    this.stopReading()
    this._in.off('error', this._onInError)
    this._out.off('drain', this._ondrain)
    this._closed = true
    for (const { batch } of this._batchOf.values()) batch.resolve()
    this.onclose?.()
  }
}

function validId(id) {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))
}

function key(id) {
  return `${typeof id}:${id}`
}

/**
 * About how many JSON values `buf` (JSON text) holds, counting up to just past
 * `stop`: one plus the commas, `{` and `[` outside strings. Strings are
 * skipped with indexOf (memchr), so a large string value costs little.
 */
function countValues(buf, stop) {
  let n = 1
  const len = buf.length
  let i = 0
  while (i < len) {
    const b = buf[i]
    if (b === 0x22) {
      // Find the closing quote: one not preceded by an odd number of backslashes.
      let j = i + 1
      for (;;) {
        j = buf.indexOf(0x22, j)
        if (j === -1) return n
        let k = j - 1
        while (buf[k] === 0x5c) k--
        if ((j - 1 - k) % 2 === 0) break
        j++
      }
      i = j + 1
      continue
    }
    if (b === 0x2c || b === 0x7b || b === 0x5b) {
      if (++n > stop) return n
    }
    i++
  }
  return n
}

/** Whether `value` has objects or arrays nested more than `max` levels (iterative: no recursion on hostile input). */
function nestedDeeperThan(value, max) {
  if (value === null || typeof value !== 'object') return false
  const values = [value]
  const depths = [1]
  while (values.length) {
    const v = values.pop()
    const d = depths.pop()
    if (d > max) return true
    const children = Array.isArray(v) ? v : Object.values(v)
    for (const c of children) {
      if (c !== null && typeof c === 'object') {
        values.push(c)
        depths.push(d + 1)
      }
    }
  }
  return false
}

/**
 * The text of the id of a JSON-RPC message, read from the start of its text,
 * which may be cut anywhere: the token (a string with its quotes, or a
 * number) of a top-level "id" member that lies wholly within `text` (members
 * before it are skipped structurally, so an "id" inside params is never
 * taken). undefined when none can be read.
 */
function idTokenFromStart(text) {
  const n = text.length
  let i = 0
  const ws = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++
  }
  // End (exclusive) of the string token starting at i, or -1.
  const stringEnd = (from) => {
    let j = from + 1
    while (j < n) {
      const c = text[j]
      if (c === '\\') j += 2
      else if (c === '"') return j + 1
      else j++
    }
    return -1
  }
  const skipValue = () => {
    const c = text[i]
    if (c === '"') {
      const e = stringEnd(i)
      if (e < 0) return false
      i = e
      return true
    }
    if (c === '{' || c === '[') {
      let depth = 0
      while (i < n) {
        const d = text[i]
        if (d === '"') {
          const e = stringEnd(i)
          if (e < 0) return false
          i = e
          continue
        }
        if (d === '{' || d === '[') depth++
        else if (d === '}' || d === ']') {
          depth--
          if (depth === 0) {
            i++
            return true
          }
        }
        i++
      }
      return false
    }
    while (i < n && !/[\s,}\]]/.test(text[i])) i++
    return i < n
  }
  ws()
  if (text[i] !== '{') return undefined
  i++
  for (;;) {
    ws()
    if (text[i] !== '"') return undefined
    const e = stringEnd(i)
    if (e < 0) return undefined
    let name
    try {
      name = JSON.parse(text.slice(i, e))
    } catch {
      return undefined
    }
    i = e
    ws()
    if (text[i] !== ':') return undefined
    i++
    ws()
    if (name === 'id') {
      if (text[i] === '"') {
        const end = stringEnd(i)
        return end < 0 ? undefined : text.slice(i, end)
      }
      NUMBER_AT.lastIndex = i
      const m = NUMBER_AT.exec(text)
      // A number must be followed by something, or it may be cut short.
      if (!m || i + m[0].length >= n || !/[\s,}]/.test(text[i + m[0].length])) return undefined
      return m[0]
    }
    if (!skipValue()) return undefined
    ws()
    if (text[i] !== ',') return undefined
    i++
  }
}

/** A JSON number token at lastIndex. */
const NUMBER_AT = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y

/** The text of the id of a JSON-RPC message, read from the end of its text: a last top-level member "id" (as the SDK's client writes it). */
function idTokenFromEnd(text) {
  const m = /[{,]\s*"id"\s*:\s*(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(text)
  return m ? m[1] : undefined
}

/** The value of an id token, or undefined (a number that is not finite, a string holding U+FFFD). */
function tokenValue(token) {
  if (token === undefined) return undefined
  let v
  try {
    v = JSON.parse(token)
  } catch {
    return undefined
  }
  if (typeof v === 'string' && v.includes('\uFFFD')) return undefined
  return validId(v) ? v : undefined
}

/** The id of a JSON-RPC message from the start of its text, which may be cut anywhere (see idTokenFromStart). */
function idFromStart(text) {
  return tokenValue(idTokenFromStart(text))
}

/** The id of a JSON-RPC message from the end of its text (see idTokenFromEnd). */
function idFromEnd(text) {
  return tokenValue(idTokenFromEnd(text))
}

/**
 * The exact text of the top-level "id" of `text` (a message JSON.parse read,
 * whose id is the number `id`) when it is not what JSON.stringify(id) gives:
 * an integer past 2^53, or another spelling (`1e3`, `-0`, `1.50`); else
 * undefined. Looks at the end, then the start of the line; the whole line
 * only when `id` is not a safe integer (a safe integer found nowhere near
 * either end is taken as written).
 */
function numericIdText(text, id) {
  if (Number.isSafeInteger(id) && !Object.is(id, -0)) {
    // The usual layouts, checked with string compares: the SDK's client ends with `,"id":N}`,
    // others start with `{"jsonrpc":"2.0","id":N,` or `{"id":N,`.
    const last = `"id":${id}}`
    if (text.endsWith(last)) {
      const before = text.charCodeAt(text.length - last.length - 1)
      if (before === 0x2c || before === 0x7b) return undefined
    }
    if (text.startsWith(`{"jsonrpc":"2.0","id":${id},`) || text.startsWith(`{"id":${id},`)) return undefined
  }
  const matches = (tok) => tok !== undefined && tok[0] !== '"' && Object.is(Number(tok), id)
  let tok = idTokenFromEnd(text.length > ID_TAIL_BYTES ? text.slice(-ID_TAIL_BYTES) : text)
  if (!matches(tok)) tok = idTokenFromStart(text.length > ID_HEAD_BYTES ? text.slice(0, ID_HEAD_BYTES) : text)
  if (!matches(tok)) tok = Number.isSafeInteger(id) ? undefined : rawValueAt(text, ['id'])
  if (tok === undefined || !NUMBER_TOKEN.test(tok)) return undefined
  return tok === JSON.stringify(id) ? undefined : tok
}

/** Whether a JSON number token stands for an integer (`12`, `1e3`, `1.50e2`, `100e-2`), whatever its size. */
function isIntegerText(tok) {
  const m = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(tok)
  if (!m) return false
  const frac = (m[2] || '').replace(/0+$/, '')
  const exp = m[3] === undefined ? 0 : Number(m[3])
  const shift = exp - frac.length
  if (shift >= 0) return true
  const digits = m[1] + frac
  const zeros = digits.length - digits.replace(/0+$/, '').length
  return zeros >= -shift || /^0+$/.test(digits)
}

/**
 * A cursor over `text`, a JSON document JSON.parse accepted: `i` is the
 * position; ws, skipString and skipValue move it past whitespace, a string
 * (found with indexOf) and a whole value.
 */
function jsonCursor(text) {
  const n = text.length
  const c = {
    i: 0,
    ws() {
      while (c.i < n) {
        const ch = text.charCodeAt(c.i)
        if (ch === 0x20 || ch === 0x09 || ch === 0x0a || ch === 0x0d) c.i++
        else break
      }
    },
    skipString() {
      let j = c.i + 1
      for (;;) {
        j = text.indexOf('"', j)
        if (j === -1) throw new Error('unterminated string')
        let k = j - 1
        while (text.charCodeAt(k) === 0x5c) k--
        if ((j - 1 - k) % 2 === 0) break
        j++
      }
      c.i = j + 1
    },
    skipValue() {
      const ch = text.charCodeAt(c.i)
      if (ch === 0x22) return c.skipString()
      if (ch === 0x7b || ch === 0x5b) {
        let depth = 0
        while (c.i < n) {
          const d = text.charCodeAt(c.i)
          if (d === 0x22) {
            c.skipString()
            continue
          }
          if (d === 0x7b || d === 0x5b) depth++
          else if (d === 0x7d || d === 0x5d) {
            depth--
            if (depth === 0) {
              c.i++
              return
            }
          }
          c.i++
        }
        return
      }
      while (c.i < n) {
        const d = text.charCodeAt(c.i)
        if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x09 || d === 0x0a || d === 0x0d) break
        c.i++
      }
    },
  }
  return c
}

/**
 * The raw JSON text of the value at `path` (object member names) in `text`,
 * a document JSON.parse accepted; like JSON.parse, the last of duplicate
 * members wins. Strings are skipped with indexOf; undefined when absent.
 */
function rawValueAt(text, path) {
  const c = jsonCursor(text)
  // At an object's '{': the raw text at path[level..] within it, or undefined.
  const inObject = (level) => {
    let found
    c.i++
    c.ws()
    if (text.charCodeAt(c.i) === 0x7d) {
      c.i++
      return undefined
    }
    for (;;) {
      c.ws()
      const keyStart = c.i
      c.skipString()
      const key = text.slice(keyStart, c.i)
      const name = key.includes('\\') ? JSON.parse(key) : key.slice(1, -1)
      c.ws()
      c.i++ // ':'
      c.ws()
      if (name === path[level]) {
        if (level === path.length - 1) {
          const start = c.i
          c.skipValue()
          found = text.slice(start, c.i)
        } else if (text.charCodeAt(c.i) === 0x7b) {
          found = inObject(level + 1)
        } else {
          found = undefined
          c.skipValue()
        }
      } else {
        c.skipValue()
      }
      c.ws()
      if (text.charCodeAt(c.i) === 0x2c) {
        c.i++
        continue
      }
      c.i++ // '}'
      return found
    }
  }
  try {
    c.ws()
    return text.charCodeAt(c.i) === 0x7b ? inObject(0) : undefined
  } catch {
    return undefined
  }
}

/**
 * The raw JSON text of each element of `text`, a JSON array JSON.parse
 * accepted (a batch: each member's text gives the exact text of its ids).
 * Strings are skipped with indexOf; undefined when `text` is not an array.
 */
function arrayItems(text) {
  const c = jsonCursor(text)
  try {
    c.ws()
    if (text.charCodeAt(c.i) !== 0x5b) return undefined
    c.i++
    c.ws()
    const items = []
    if (text.charCodeAt(c.i) === 0x5d) return items
    for (;;) {
      c.ws()
      const start = c.i
      c.skipValue()
      items.push(text.slice(start, c.i))
      c.ws()
      const sep = text.charCodeAt(c.i++)
      if (sep === 0x2c) continue
      return sep === 0x5d ? items : undefined
    }
  } catch {
    return undefined
  }
}

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/**
 * Why `value` (parsed JSON) is not a message the server takes, naming the
 * field at fault: {code, message, data?}. -32600 for the envelope (and for
 * params that is not a structured value); -32602 for a request's params.
 * `rawId`: the exact text of a numeric id that is not an integer.
 */
function invalidMessage(value, rawId) {
  const invalid = (text) => ({ code: ErrorCode.InvalidRequest, message: `Invalid Request: ${text}` })
  if (!isPlainObject(value)) return invalid(`a message must be a JSON object, not ${what(value)}`)
  if (value.jsonrpc !== '2.0') return invalid(`jsonrpc must be "2.0"${value.jsonrpc === undefined ? ' (it is missing)' : `, not ${what(value.jsonrpc)}`}`)
  if ('method' in value && typeof value.method !== 'string') return invalid(`method must be a string, not ${what(value.method)}`)
  if (rawId !== undefined) return invalid(`id must be a string or an integer, not the number ${rawId}`)
  if ('id' in value && typeof value.id !== 'string' && !Number.isSafeInteger(value.id)) {
    return invalid(`id must be a string or an integer, not ${what(value.id)}`)
  }
  if (typeof value.method === 'string') {
    const schema = 'id' in value ? JSONRPCRequestSchema : JSONRPCNotificationSchema
    const r = schema.safeParse(value)
    if (!r.success) {
      if (value.params !== undefined && typeof value.params !== 'object') return invalid(`params must be an object, not ${what(value.params)}`)
      if (value.params === null) return invalid('params must be an object, not null')
      const { text, fields } = describeIssues(r.error.issues, value)
      if (r.error.issues.every((i) => i.path[0] === 'params')) {
        return { code: ErrorCode.InvalidParams, message: `Invalid params for ${value.method}: ${text}`, data: { fields } }
      }
      return invalid(text)
    }
  }
  return invalid('not a JSON-RPC 2.0 request, notification or response')
}

module.exports = {
  LineTransport,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_MAX_IN_FLIGHT,
  BATCH_VERSIONS,
  MAX_DEPTH,
  MAX_VALUES,
  countValues,
  idFromStart,
  idFromEnd,
  numericIdText,
  rawValueAt,
  arrayItems,
  isIntegerText,
}
