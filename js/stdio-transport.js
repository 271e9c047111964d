'use strict'
// Newline-delimited JSON-RPC over stdin/stdout for the MCP SDK's `Server`
// (the SDK's Transport interface: start, send, close, onmessage, onerror,
// onclose). Everything above framing — initialize and version negotiation,
// ping, cancellation, method dispatch and JSON-RPC errors for requests — is the
// SDK's Protocol/Server; this file only frames messages.
//
// Why not the SDK's StdioServerTransport: on a line that is not JSON or not a
// JSON-RPC message it only calls onerror and sends no response, so a client
// waits forever; and when its buffer passes 10 MiB it closes the connection.
// Here a malformed line is answered with a JSON-RPC error (-32700 parse error,
// -32600 invalid request) and reading goes on; an oversized line is skipped
// up to its newline and answered with -32600. Lines are gathered as a chunk
// list and joined once, so a large message costs linear time.
//
// A line that is not valid UTF-8 is refused with -32700 (JSON text is UTF-8)
// and never reaches a tool: decoding it leniently would turn each bad byte
// into U+FFFD, which a tool would then match or write into a file.

const { JSONRPCMessageSchema, ErrorCode } = require('@modelcontextprotocol/sdk/types.js')

/** Largest accepted message (one line), in bytes. write_file content travels inside one. */
const DEFAULT_MAX_MESSAGE_BYTES = 128 * 1024 * 1024

/** Strict UTF-8: throws on invalid bytes instead of writing U+FFFD; keeps a BOM (like Buffer#toString). */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

class LineTransport {
  /**
   * @param {{stdin?: NodeJS.ReadableStream, stdout?: NodeJS.WritableStream, maxMessageBytes?: number, onEnd?: () => void}} opts
   *   onEnd: called once when stdin ends or fails (the client went away).
   */
  constructor(opts = {}) {
    this._in = opts.stdin || process.stdin
    this._out = opts.stdout || process.stdout
    this._max = opts.maxMessageBytes || DEFAULT_MAX_MESSAGE_BYTES
    this._onEnd = opts.onEnd
    this._parts = []
    this._size = 0
    this._skipping = false
    this._reading = false
    this._closed = false
    this._lastWrite = Promise.resolve()
    this._ondata = (chunk) => this._feed(chunk)
    this._onend = () => this._ended()
    this._onInError = (err) => {
      this.onerror?.(err)
      this._ended()
    }
    this._onOutError = (err) => {
      // EPIPE and friends: the client is gone; nothing more can be sent.
      this._outBroken = true
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
    this._in.resume()
  }

  /** Stops reading stdin; sending still works (for answers to calls in flight). */
  stopReading() {
    if (!this._reading) return
    this._reading = false
    this._in.off('data', this._ondata)
    this._in.off('end', this._onend)
    this._in.pause()
    // Let the process exit without waiting on stdin.
    if (typeof this._in.unref === 'function') this._in.unref()
    this._parts = []
    this._size = 0
  }

  _ended() {
    if (this._endSeen) return
    this._endSeen = true
    this._onEnd?.()
  }

  _feed(chunk) {
    if (!this._reading) return
    let start = 0
    for (;;) {
      const nl = chunk.indexOf(10, start)
      if (nl === -1) break
      this._take(chunk.subarray(start, nl))
      const line = this._parts.length === 1 ? this._parts[0] : Buffer.concat(this._parts, this._size)
      const skipped = this._skipping
      this._parts = []
      this._size = 0
      this._skipping = false
      if (skipped) {
        this._reject(ErrorCode.InvalidRequest, `Invalid Request: message larger than ${this._max} bytes`, null)
      } else {
        this._line(line)
      }
      start = nl + 1
      if (!this._reading) return
    }
    this._take(chunk.subarray(start))
  }

  _take(part) {
    if (this._skipping || part.length === 0) return
    if (this._size + part.length > this._max) {
      this._skipping = true
      this._parts = []
      this._size = 0
      return
    }
    this._parts.push(part)
    this._size += part.length
  }

  _line(buf) {
    let text
    try {
      text = UTF8.decode(buf)
    } catch {
      const id = lenientId(buf)
      this._reject(ErrorCode.ParseError, 'Parse error: the message is not valid UTF-8 (JSON text must be UTF-8); it was not run', id)
      this.onerror?.(new Error(`message${id === null ? '' : ` ${JSON.stringify(id)}`} is not valid UTF-8`))
      return
    }
    if (text.endsWith('\r')) text = text.slice(0, -1)
    if (text.trim() === '') return
    let value
    try {
      value = JSON.parse(text)
    } catch (err) {
      this._reject(ErrorCode.ParseError, `Parse error: ${err.message}`, null)
      this.onerror?.(err)
      return
    }
    const parsed = JSONRPCMessageSchema.safeParse(value)
    if (!parsed.success) {
      const id = value && typeof value === 'object' && (typeof value.id === 'string' || typeof value.id === 'number') ? value.id : null
      this._reject(ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message', id)
      this.onerror?.(new Error(`invalid JSON-RPC message: ${parsed.error.message}`))
      return
    }
    this.onmessage?.(parsed.data)
  }

  _reject(code, message, id) {
    this.send({ jsonrpc: '2.0', id, error: { code, message } }).catch(() => {})
  }

  /** Writes one message; resolves once it is handed to the OS (or stdout broke). */
  send(message) {
    if (this._closed || this._outBroken) return Promise.resolve()
    const line = JSON.stringify(message) + '\n'
    const p = new Promise((resolve) => {
      this._out.write(line, () => resolve())
    })
    this._lastWrite = p
    return p
  }

  /** Resolves when every message sent so far is written. */
  flush() {
    return this._lastWrite
  }

  async close() {
    if (this._closed) return
    this.stopReading()
    this._in.off('error', this._onInError)
    this._closed = true
    this.onclose?.()
  }
}

/**
 * The request id of a line that is not valid UTF-8, for its error answer:
 * read from a lenient decoding, used only when it is a number or a string
 * without U+FFFD (which might stand for a bad byte); else null.
 */
function lenientId(buf) {
  let value
  try {
    value = JSON.parse(buf.toString('utf8'))
  } catch {
    return null
  }
  const id = value && typeof value === 'object' ? value.id : undefined
  if (typeof id === 'number') return id
  if (typeof id === 'string' && !id.includes('\uFFFD')) return id
  return null
}

module.exports = { LineTransport, DEFAULT_MAX_MESSAGE_BYTES }
