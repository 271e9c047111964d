// The input schema a tool set lists for a tool: the schema file's
// `parameters`, without read_file's `anchors` where the set has no edit_lines
// (js/tools.js forSet). Written out here, not taken from forSet, so the tests
// check that rule rather than repeat it.

/**
 * `parameters` (a schema file's, plain or strict) as the `default` set lists
 * it for tool `name`: a fresh copy, read_file's `anchors` left out.
 */
export function listedByDefault(name, parameters) {
  const p = JSON.parse(JSON.stringify(parameters))
  if (name !== 'read_file') return p
  delete p.properties.anchors
  if (Array.isArray(p.required)) p.required = p.required.filter((f) => f !== 'anchors')
  return p
}
