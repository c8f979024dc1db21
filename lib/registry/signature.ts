// Reads a handler's parameter list from its source text. Tools and prompts are called
// by parameter name, as in the Python original, so the calling convention and the
// generated input schema both come from here.
import type { Param, ParamField } from "../schema/params.ts";
import { matchBracket, splitTopLevel, stripComments, topLevelAssign } from "./source-scan.ts";

export type { Param, ParamField };

export type Signature =
  | { ok: true; params: Param[] /** Body text after `{`, for the doc comment; "" for expression arrows. */; body: string }
  | { ok: false; reason: string };

const identifier = /^[A-Za-z_$][\w$]*$/;

export function readSignature(fn: Function): Signature {
  let src: string;
  try {
    src = Function.prototype.toString.call(fn);
  } catch {
    return { ok: false, reason: "its source text is not available" };
  }
  if (/\{\s*\[native code\]\s*\}\s*$/.test(src)) {
    return { ok: false, reason: "it is a bound or native function, whose parameters cannot be read" };
  }
  if (/^class\b/.test(src)) return { ok: false, reason: "it is a class, not a function" };

  const single = /^(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>/.exec(src);
  if (single) {
    return { ok: true, params: [{ kind: "name", name: single[1]! }], body: bodyAfter(src, single[0].length) };
  }
  const open = src.indexOf("(");
  const close = open === -1 ? -1 : matchBracket(src, open);
  if (close === -1) return { ok: false, reason: "its parameter list could not be read" };
  const params: Param[] = [];
  for (const text of splitTopLevel(stripComments(src.slice(open + 1, close)))) {
    const param = readParam(text);
    if (param === null) return { ok: false, reason: "one of its parameters could not be read" };
    params.push(param);
  }
  return { ok: true, params, body: bodyAfter(src, close + 1) };
}

function bodyAfter(src: string, from: number): string {
  const rest = src.slice(from).replace(/^\s*(=>)?\s*/, "");
  return rest.startsWith("{") ? rest.slice(1) : "";
}

function splitDefault(text: string): { head: string; defaultSource?: string } {
  const eq = topLevelAssign(text);
  if (eq === -1) return { head: text.trim() };
  return { head: text.slice(0, eq).trim(), defaultSource: text.slice(eq + 1).trim() };
}

function readParam(text: string): Param | null {
  if (text.startsWith("...")) {
    const name = text.slice(3).trim();
    return identifier.test(name) ? { kind: "rest", name } : { kind: "array" };
  }
  const { head, defaultSource } = splitDefault(text);
  if (head.startsWith("[")) return { kind: "array" };
  if (head.startsWith("{")) {
    const end = matchBracket(head, 0);
    if (end !== head.length - 1) return null;
    const fields: ParamField[] = [];
    let rest = false;
    for (const entry of splitTopLevel(head.slice(1, -1))) {
      if (entry.startsWith("...")) {
        rest = true;
        continue;
      }
      const field = readField(entry);
      if (field === null) return null;
      fields.push(field);
    }
    return defaultSource === undefined ? { kind: "object", fields, rest } : { kind: "object", fields, rest, defaultSource };
  }
  if (!identifier.test(head)) return null;
  return defaultSource === undefined ? { kind: "name", name: head } : { kind: "name", name: head, defaultSource };
}

function readField(entry: string): ParamField | null {
  const { head, defaultSource } = splitDefault(entry);
  // `key: target` renames; the key is what callers send.
  const colon = head.search(/:(?![^[]*\])/);
  let key = (colon === -1 ? head : head.slice(0, colon)).trim();
  const quoted = /^(["'])(.*)\1$/.exec(key);
  if (quoted) key = quoted[2]!;
  else if (!/^[^\s[\]{}()]+$/.test(key)) return null;
  return defaultSource === undefined ? { name: key } : { name: key, defaultSource };
}
