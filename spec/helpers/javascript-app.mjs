// Registers tools the way a JavaScript app does: from a .js file, where a parameter has no
// type to lose, so registration takes it as any JSON value (lib/registry/origin.ts).
// Specs of untyped handlers register through here; a call from a .ts spec would be refused.

/** `server.tool(handler, options)` called from JavaScript. */
export const jsTool = (server, handler, options) => server.tool(handler, options);
/** `server.asyncTool(handler, options)` called from JavaScript. */
export const jsAsyncTool = (server, handler, options) => server.asyncTool(handler, options);
