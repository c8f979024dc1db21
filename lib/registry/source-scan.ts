// A tiny scanner over JavaScript source text: enough to find matching brackets and
// top-level commas while stepping over strings, template literals and comments.
// Function sources come from `Function.prototype.toString`, so they are valid JS.

/** Index just past the string, template or comment starting at `i`, or `i` when none starts there. */
export function skipNonCode(src: string, i: number): number {
  const c = src[i];
  if (c === "/" && src[i + 1] === "/") {
    const end = src.indexOf("\n", i);
    return end === -1 ? src.length : end + 1;
  }
  if (c === "/" && src[i + 1] === "*") {
    const end = src.indexOf("*/", i + 2);
    return end === -1 ? src.length : end + 2;
  }
  if (c === '"' || c === "'") {
    let j = i + 1;
    while (j < src.length && src[j] !== c) j += src[j] === "\\" ? 2 : 1;
    return j + 1;
  }
  if (c === "`") {
    let j = i + 1;
    while (j < src.length && src[j] !== "`") {
      if (src[j] === "\\") j += 2;
      else if (src[j] === "$" && src[j + 1] === "{") j = matchBracket(src, j + 1) + 1;
      else j++;
    }
    return j + 1;
  }
  return i;
}

const closers: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/** Indices of the code characters of `src` from `from` on; strings, templates and comments are skipped whole. */
function* codeIndices(src: string, from = 0): Generator<number> {
  let i = from;
  while (i < src.length) {
    const skipped = skipNonCode(src, i);
    if (skipped !== i) i = skipped;
    else yield i++;
  }
}

/** Index of the bracket closing the one at `open`, or -1. */
export function matchBracket(src: string, open: number): number {
  const stack: string[] = [];
  for (const i of codeIndices(src, open)) {
    const c = src[i]!;
    if (c in closers) stack.push(closers[c]!);
    else if (c === ")" || c === "]" || c === "}") {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/** Indices of the characters of `src` outside brackets, strings and comments (brackets excluded). */
function* topLevel(src: string): Generator<number> {
  let depth = 0;
  for (const i of codeIndices(src)) {
    const c = src[i]!;
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (depth === 0) yield i;
  }
}

/** Split at commas that are not nested in brackets, strings or comments. */
export function splitTopLevel(src: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (const i of topLevel(src)) {
    if (src[i] !== ",") continue;
    parts.push(src.slice(start, i));
    start = i + 1;
  }
  parts.push(src.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

/** The text with comments removed (strings kept). */
export function stripComments(src: string): string {
  let out = "";
  let i = 0;
  while (i < src.length) {
    const skipped = skipNonCode(src, i);
    if (skipped !== i) {
      if (src[i] === "/") out += " ";
      else out += src.slice(i, skipped);
      i = skipped;
      continue;
    }
    out += src[i];
    i++;
  }
  return out;
}

/** Index of the first top-level `=` that is an assignment (not `==`, `=>`, `>=`, ...). */
export function topLevelAssign(src: string): number {
  for (const i of topLevel(src)) {
    if (src[i] !== "=") continue;
    const prev = src[i - 1];
    const next = src[i + 1];
    if (next !== "=" && next !== ">" && prev !== "=" && prev !== "!" && prev !== "<" && prev !== ">") return i;
  }
  return -1;
}
