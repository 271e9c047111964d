'use strict'
// Waiting for a busy file on the event loop, not on a thread-pool thread.
//
// The native async functions run on libuv's thread pool (four threads by
// default). A call that finds its file being written by another call (or
// holding another process's lock) does not wait there: it answers
// FILE_LOCKED at once, having written nothing, and this wrapper calls it
// again after a short pause (1 ms, doubling to 50 ms) until it gets another
// answer or the wait budget is spent: options.lockWaitMs, default 10,000 ms.
// Meanwhile unrelated calls, and every other use of the pool (fs, crypto,
// zlib), go on.

const DEFAULT_LOCK_WAIT_MS = 10_000
const MAX_PAUSE_MS = 50

/** The caller's wait budget in ms. */
function lockWait(options) {
  let v
  try {
    v = options && typeof options === 'object' ? (options.lockWaitMs ?? options.lock_wait_ms) : undefined
  } catch {
    // A hostile options object: the engine answers it with INVALID_INPUT.
  }
  return Number.isSafeInteger(v) && v >= 0 ? v : DEFAULT_LOCK_WAIT_MS
}

/**
 * `fn` (a native async engine function), retried while it answers FILE_LOCKED.
 * @param {(input: unknown, options?: unknown) => Promise<any>} fn
 */
function retrying(fn) {
  const wrapped = async function (input, options) {
    const deadline = Date.now() + lockWait(options)
    let pause = 1
    for (;;) {
      const r = await fn(input, options)
      if (!r || r.ok !== false || r.code !== 'FILE_LOCKED') return r
      const left = deadline - Date.now()
      if (left <= 0) return r
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)))
      pause = Math.min(pause * 2, MAX_PAUSE_MS)
    }
  }
  Object.defineProperty(wrapped, 'name', { value: fn.name })
  Object.defineProperty(wrapped, 'native', { value: fn })
  return wrapped
}

module.exports = { retrying, lockWait, DEFAULT_LOCK_WAIT_MS }
