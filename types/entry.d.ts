// The values index.js defines in JS (js/api.js `ownExports`), declared for
// index.d.ts (hand-written; scripts/gen-entry.mjs copies it there).

/** A frozen object mapping each code name to the same string. */
export declare const PATCH_FILE_ERROR_CODES: Readonly<{ [K in PatchFileErrorCode]: K }>

/** The `patch_file` tool schema (schemas/patch_file.schema.json). */
export declare const patchFileSchema: PatchFileSchema
/** Every tool schema shipped in schemas/, by tool name. */
export declare const schemas: Readonly<Record<string, PatchFileSchema>>
