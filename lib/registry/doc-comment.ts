// The handler's documentation text: a leading `/** ... */` comment inside its body,
// which survives in `Function.prototype.toString` (a comment above the function does not).

export interface DocComment {
  description: string;
  params: Record<string, string>;
}

export function readDocComment(body: string): DocComment | null {
  const m = /^\s*\/\*\*([\s\S]*?)\*\//.exec(body);
  if (!m) return null;
  const lines = m[1]!.split(/\r?\n/).map((line) => line.replace(/^\s*\*?\s?/, "").trimEnd());
  const description: string[] = [];
  const params: Record<string, string> = {};
  let current: string | null = null;
  for (const line of lines) {
    const tag = /^@(\w+)\s*(.*)$/.exec(line.trim());
    if (tag) {
      current = null;
      if (tag[1] === "param") {
        // `@param name text`, `@param {type} name text`, `@param name - text`
        const p = /^(?:\{[^}]*\}\s*)?\[?([\w$.]+)(?:=[^\]]*)?\]?\s*(?:-\s*)?(.*)$/.exec(tag[2]!);
        if (p) {
          current = p[1]!.replace(/^.*\./, "");
          params[current] = p[2]!.trim();
        }
      }
      continue;
    }
    if (current !== null) {
      if (line.trim()) params[current] = `${params[current]} ${line.trim()}`.trim();
    } else {
      description.push(line);
    }
  }
  return { description: description.join("\n").trim(), params };
}
