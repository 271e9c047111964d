// A consumer of the agent-SDK subpaths, as an application writes it:
//
// - adaptersScript(how): a script that uses the four subpaths in turn through
//   `import` or `require`, and checkAdaptersRun for what it prints;
// - CONSUMER_MTS / CONSUMER_CTS: TypeScript (ES module and CommonJS) using
//   the adapters with the SDKs' own types (ToolSet, Editor, StructuredTool,
//   ToolResultBlockParam), with @ts-expect-error lines a wrong use must hit.
//
// __test__/adapters.test.mjs checks them against this checkout,
// __test__/packaging.test.mjs against the packed package installed offline,
// and scripts/release-rehearse.mjs against the package installed from a
// registry.
import assert from 'node:assert/strict'

/** The SDK packages a consumer installs beside the package. */
export const SDK_PACKAGES = ['ai', '@openai/agents', '@langchain/core', '@langchain/openai', '@anthropic-ai/sdk']

export const CONSUMER_MTS = `import { generateText, stepCountIs, type ToolSet } from 'ai'
import { Agent, applyPatchTool, type Editor } from '@openai/agents'
import { tools } from '@langchain/openai'
import type { StructuredTool } from '@langchain/core/tools'
import type { ToolResultBlockParam, ToolTextEditor20250728, ToolUseBlock } from '@anthropic-ai/sdk/resources/messages'
import type { Compact, PatchFileErrorCode, TextEditorResult } from 'patch-file-tool'
import { createPatchFileTools } from 'patch-file-tool/ai-sdk'
import { createEditor } from 'patch-file-tool/openai-agents'
import { createApplyPatchExecute, createPatchFileTools as createLangChainTools } from 'patch-file-tool/langchain'
import { createTextEditor } from 'patch-file-tool/anthropic'

const workspaceRoot = '/work'
export const toolSet: ToolSet = createPatchFileTools({ workspaceRoot, durable: false })
export async function aiSdk(): Promise<PatchFileErrorCode | string> {
  const r = await generateText({ model: 'openai/gpt-5.1', tools: createPatchFileTools({ workspaceRoot }), stopWhen: stepCountIs(5), prompt: 'x' })
  for (const t of r.toolResults) {
    // The tool results are typed by the tool set: patch_file's output is a PatchFileResult.
    if (t.toolName === 'patch_file' && !t.dynamic && !t.output.ok) return t.output.code
  }
  return r.text
}
export const editor: Editor = createEditor({ workspaceRoot })
export const agent = new Agent({ name: 'coder', tools: [applyPatchTool({ editor: createEditor({ workspaceRoot }) })] })
export const applyPatch = tools.applyPatch({ execute: createApplyPatchExecute({ workspaceRoot }) })
export const langChainTools: StructuredTool[] = createLangChainTools({ workspaceRoot })
const textEditor = createTextEditor({ workspaceRoot, maxCharacters: 10_000 })
export const definition: ToolTextEditor20250728 = textEditor.tool
export function answer(block: ToolUseBlock): Promise<ToolResultBlockParam> {
  return textEditor.toolResult(block)
}
// run answers in the compact view (as the model reads it) unless the options say results: 'full'.
export const viewed: Promise<Compact<TextEditorResult>> = textEditor.run({ command: 'view', path: 'a.ts', view_range: [1, 20] })
export const viewedFull: Promise<TextEditorResult> = createTextEditor({ workspaceRoot, results: 'full' }).run({ command: 'view', path: 'a.ts' })

// @ts-expect-error maxCharacters is a number
createTextEditor({ maxCharacters: 'many' })
// @ts-expect-error workspaceRoot is a string
createEditor({ workspaceRoot: 1 })
// @ts-expect-error the default tool set has no edit_block
void createPatchFileTools().edit_block
// @ts-expect-error execute takes apply_patch operations
void createApplyPatchExecute()({ type: 'rename_file', path: 'a' })
// @ts-expect-error run takes a text editor command
void textEditor.run({ command: 'delete', path: 'a' })
`

export const CONSUMER_CTS = `import aiSdk = require('patch-file-tool/ai-sdk')
import agents = require('patch-file-tool/openai-agents')
import langchain = require('patch-file-tool/langchain')
import anthropic = require('patch-file-tool/anthropic')
import type { ToolSet } from 'ai'
import type { Editor } from '@openai/agents'
import type { StructuredTool } from '@langchain/core/tools'
import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages'

const set: ToolSet = aiSdk.createPatchFileTools({ workspaceRoot: '.' })
const editor: Editor = agents.createEditor()
const list: StructuredTool[] = langchain.createPatchFileTools()
const execute: (op: { type: 'delete_file'; path: string }) => Promise<string> = langchain.createApplyPatchExecute()
const result: Promise<ToolResultBlockParam> = anthropic.createTextEditor().toolResult({ id: 't', name: 'str_replace_based_edit_tool', input: {} })
// @ts-expect-error createEditor takes options, not a path
agents.createEditor('.')
export = [set, editor, list, execute, result]
`

/** A script using the four agent-SDK subpaths in turn on ws/adapters.txt (v0 -> v4), as `import` or `require`. */
export function adaptersScript(how) {
  const load = (spec, names) => (how === 'import' ? `import { ${names} } from '${spec}'` : `const { ${names.replace(/ as /g, ': ')} } = require('${spec}')`)
  const body = `${load('@langchain/openai', 'tools')}
${load(`patch-file-tool/ai-sdk`, 'createPatchFileTools')}
${load(`patch-file-tool/openai-agents`, 'createEditor')}
${load(`patch-file-tool/langchain`, 'createApplyPatchExecute, createPatchFileTools as createLangChainTools')}
${load(`patch-file-tool/anthropic`, 'createTextEditor')}
const workspaceRoot = 'ws'
const file = 'adapters.txt'
const out = {}
out.aiSdk = await createPatchFileTools({ workspaceRoot }).patch_file.execute({ file_path: file, search_block: 'v0', replace_block: 'v1' }, { toolCallId: 'a', messages: [] })
out.agents = await createEditor({ workspaceRoot }).updateFile({ type: 'update_file', path: file, diff: '@@\\n-v1\\n+v2\\n' })
const applyPatch = tools.applyPatch({ execute: createApplyPatchExecute({ workspaceRoot }) })
out.langchain = (await applyPatch.invoke({ type: 'tool_call', id: 'c', name: 'apply_patch', args: { type: 'update_file', path: file, diff: '@@\\n-v2\\n+v3\\n' } })).content
out.langchainRead = JSON.parse(await createLangChainTools({ workspaceRoot }).find((t) => t.name === 'read_file').invoke({ file_path: file })).content
out.anthropic = await createTextEditor({ workspaceRoot }).toolResult({ id: 't', name: 'str_replace_based_edit_tool', input: { command: 'str_replace', path: file, old_str: 'v3', new_str: 'v4' } })
out.stale = await createEditor({ workspaceRoot }).updateFile({ type: 'update_file', path: file, diff: '@@\\n-v0\\n+v9\\n' })
out.natives = Object.keys(require.cache).filter((k) => k.endsWith('.node')).length
console.log(JSON.stringify(out))`
  return how === 'import' ? `import { createRequire } from 'node:module'\nconst require = createRequire(import.meta.url)\n${body}\n` : `(async () => {\n${body}\n})()\n`
}

/** Checks what adaptersScript printed (`out`) and the file it edited (`text`); throws an AssertionError naming `what`. */
export function checkAdaptersRun(out, text, what) {
  assert.equal(out.aiSdk.ok, true, `${what}: ai-sdk ${JSON.stringify(out.aiSdk)}`)
  assert.deepEqual(out.agents, { status: 'completed', output: 'Updated adapters.txt: 1 section applied at line 1.' }, `${what}: openai-agents`)
  assert.equal(out.langchain, 'Updated adapters.txt: 1 section applied at line 1.', `${what}: langchain applyPatch`)
  assert.equal(out.langchainRead, 'v3\n', `${what}: langchain read_file`)
  assert.equal(out.anthropic.is_error, undefined, `${what}: anthropic ${out.anthropic.content}`)
  assert.match(out.anthropic.content, /^Edited adapters\.txt at line 1\./, `${what}: anthropic`)
  assert.equal(out.stale.status, 'failed', `${what}: a stale update fails`)
  assert.match(out.stale.output, /^SEARCH_BLOCK_NOT_FOUND: /, `${what}: with its code`)
  assert.equal(out.natives, 1, `${what}: one native engine`)
  assert.equal(text, 'v4\n', `${what}: the file went v0 -> v4`)
}
