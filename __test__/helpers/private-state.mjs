// Imported first by every test file, so that the engine never touches the
// user's real per-user state (journal, in-place copies), however the file is
// run: `npm test` (scripts/test.mjs), `npm run test:js` or `node --test`.
//
// - PATCH_FILE_STATE_DIR, when not set already (npm test sets it for the
//   whole run), becomes a fresh temp directory, removed when the process exits;
//   child processes (the bin, the CLI) inherit it.
// - XDG_STATE_HOME, where the engine's default state lives on Linux and the
//   BSDs, points at an empty decoy directory: code that ignored
//   PATCH_FILE_STATE_DIR would write there, not into ~/.local/state. At exit,
//   anything in the decoy makes the file fail (exit code 1, with the path on
//   stderr). Under npm test the decoy is the run's own (PFT_SUITE_DECOY_STATE),
//   checked once at the end (__test__/suite-end.test.mjs).
// - Run on its own (npm test makes one for the whole run), TMPDIR (TMP, TEMP)
//   becomes a fresh directory of this process, holding the state directory
//   and the decoy, removed when it exits: the temp workspaces of a file
//   (thousands of them) leave nothing behind in the system's temp directory.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** Where the engine keeps its default state when PATCH_FILE_STATE_DIR is unset, relative to XDG_STATE_HOME. */
export const STATE_SUBDIR = 'patch-file-tool'

/** Whether the default state directory follows XDG_STATE_HOME here (not macOS or Windows). */
export const XDG_PLATFORM = process.platform !== 'win32' && process.platform !== 'darwin'

if (!process.env.PATCH_FILE_STATE_DIR) {
  // This process's temp directory (TMPDIR, TMP, TEMP; world-writable and
  // sticky as /tmp is), as npm test makes one for its run.
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-tmp-')))
  if (process.platform !== 'win32') fs.chmodSync(tmp, 0o1777)
  for (const k of ['TMPDIR', 'TMP', 'TEMP']) process.env[k] = tmp
  const dir = fs.mkdtempSync(path.join(tmp, 'pft-test-state-'))
  process.env.PATCH_FILE_STATE_DIR = path.join(dir, 'state')
  let decoy = null
  if (XDG_PLATFORM && !process.env.PFT_SUITE_DECOY_STATE) {
    decoy = path.join(dir, 'xdg-state-home')
    fs.mkdirSync(decoy)
    process.env.XDG_STATE_HOME = decoy
  }
  process.on('exit', () => {
    if (decoy && fs.existsSync(path.join(decoy, STATE_SUBDIR))) {
      process.stderr.write(
        `\nTEST HYGIENE: something wrote the engine's default per-user state (${path.join(decoy, STATE_SUBDIR)}) ` +
          'instead of PATCH_FILE_STATE_DIR: a test ran the engine without the private state directory\n',
      )
      process.exitCode = 1
    }
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 2 })
  })
}
