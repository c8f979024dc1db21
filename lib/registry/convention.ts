// How a handler is called. Handlers are called by parameter name, as in the Python
// original: `({a, b = 2}) => ...` receives the arguments object, `(a, b) => ...`
// receives them positionally. The context is the parameter after the arguments object,
// or a positional parameter named `ctx` / `context`, or the last one when declared.
import { readDocComment, type DocComment } from "./doc-comment.ts";
import { readSignature, type Param } from "./signature.ts";

export type Convention = { style: "object"; contextIndex: number | null } | { style: "positional"; names: string[]; contextIndex: number | null };

export interface HandlerShape {
  convention: Convention;
  /** Parameters that become schema properties (the context excluded), when readable. */
  params: Param[] | null;
  doc: DocComment | null;
  /** Why the parameter list could not be read, when it could not. */
  unreadable?: string;
}

const CONTEXT_NAMES = new Set(["ctx", "context"]);

export function analyseHandler(fn: Function, declaredContext: boolean | undefined, schemaKeys: string[] | null): HandlerShape {
  const sig = readSignature(fn);
  if (!sig.ok) {
    const context = declaredContext ?? fn.length >= 2;
    return { convention: { style: "object", contextIndex: context ? 1 : null }, params: null, doc: null, unreadable: sig.reason };
  }
  const doc = readDocComment(sig.body);
  const params = sig.params;
  const first = params[0];
  const allNames = params.every((p) => p.kind === "name");
  const positional = allNames && (schemaKeys === null || params.every((p) => p.kind !== "name" || schemaKeys.includes(p.name) || CONTEXT_NAMES.has(p.name)));

  if (!positional || first?.kind === "object") {
    const context = declaredContext ?? params.length >= 2;
    return { convention: { style: "object", contextIndex: context ? 1 : null }, params: first ? [first] : [], doc };
  }
  const names = params.map((p) => (p.kind === "name" ? p.name : ""));
  let contextIndex: number | null = null;
  if (declaredContext === true) contextIndex = names.length - 1;
  else if (declaredContext === undefined) {
    const found = names.findIndex((n) => CONTEXT_NAMES.has(n));
    contextIndex = found === -1 ? null : found;
  }
  if (contextIndex === -1) contextIndex = null;
  const argParams = params.filter((_, i) => i !== contextIndex);
  return {
    convention: { style: "positional", names: names.filter((_, i) => i !== contextIndex), contextIndex },
    params: argParams,
    doc,
  };
}

/** Calls `fn` with `args` (and `ctx`) the way its parameter list asks for. */
export function invoke(fn: Function, convention: Convention, args: Record<string, unknown>, ctx: unknown): unknown {
  if (convention.style === "object") {
    return convention.contextIndex === null ? fn(args) : fn(args, ctx);
  }
  const values: unknown[] = [];
  let n = 0;
  const total = convention.names.length + (convention.contextIndex === null ? 0 : 1);
  for (let i = 0; i < total; i++) values.push(i === convention.contextIndex ? ctx : args[convention.names[n++]!]);
  return fn(...values);
}
