// A tiny parser for JavaScript literal source text — numbers, strings, true/false/null,
// arrays and objects of those — used to read parameter defaults. It never evaluates
// code: anything else (calls, identifiers, `${}` templates) is "not a literal".
import { setOwn } from "../util/guards.ts";

export type LiteralResult = { ok: true; value: unknown } | { ok: false };

const NOT_LITERAL: LiteralResult = { ok: false };
const NUMBER =
  /^(?:0[xX][\da-fA-F](?:_?[\da-fA-F])*|0[bB][01](?:_?[01])*|0[oO][0-7](?:_?[0-7])*|(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?)/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*/;
const SIMPLE_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", "0": "\0" };

class Reader {
  pos = 0;
  constructor(readonly src: string) {}

  skipSpace(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos]!)) this.pos++;
  }

  peek(): string {
    this.skipSpace();
    return this.src[this.pos] ?? "";
  }

  eat(ch: string): boolean {
    if (this.peek() !== ch) return false;
    this.pos++;
    return true;
  }

  value(): unknown {
    const ch = this.peek();
    if (ch === "[") return this.array();
    if (ch === "{") return this.object();
    if (ch === '"' || ch === "'" || ch === "`") return this.string(ch);
    if (ch === "-" || ch === "+") {
      this.pos++;
      const n = this.number();
      return ch === "-" ? -n : n;
    }
    if (/[\d.]/.test(ch)) return this.number();
    const word = IDENTIFIER.exec(this.src.slice(this.pos))?.[0];
    if (word === "true" || word === "false" || word === "null") {
      this.pos += word.length;
      return word === "true" ? true : word === "false" ? false : null;
    }
    throw NOT_LITERAL;
  }

  number(): number {
    this.skipSpace();
    const text = NUMBER.exec(this.src.slice(this.pos))?.[0];
    if (!text) throw NOT_LITERAL;
    this.pos += text.length;
    // A BigInt suffix or a trailing identifier makes it something else.
    if (/^[\w$]/.test(this.src.slice(this.pos))) throw NOT_LITERAL;
    const clean = text.replace(/_/g, "");
    return /^0[xXbBoO]/.test(clean) ? Number(clean) : Number.parseFloat(clean);
  }

  string(quote: string): string {
    let out = "";
    this.pos++;
    while (this.pos < this.src.length) {
      const ch = this.src[this.pos++]!;
      if (ch === quote) return out;
      if (quote === "`" && ch === "$" && this.src[this.pos] === "{") throw NOT_LITERAL;
      if (ch === "\n" && quote !== "`") throw NOT_LITERAL;
      if (ch !== "\\") {
        out += ch;
        continue;
      }
      out += this.escape();
    }
    throw NOT_LITERAL;
  }

  escape(): string {
    const ch = this.src[this.pos++] ?? "";
    if (SIMPLE_ESCAPES[ch] !== undefined && !(ch === "0" && /\d/.test(this.src[this.pos] ?? ""))) return SIMPLE_ESCAPES[ch]!;
    if (ch === "x" || ch === "u") {
      const braced = ch === "u" && this.src[this.pos] === "{";
      const m = (braced ? /^\{([\da-fA-F]{1,6})\}/ : ch === "x" ? /^([\da-fA-F]{2})/ : /^([\da-fA-F]{4})/).exec(this.src.slice(this.pos));
      if (!m) throw NOT_LITERAL;
      this.pos += m[0].length;
      const code = Number.parseInt(m[1]!, 16);
      if (code > 0x10ffff) throw NOT_LITERAL;
      return String.fromCodePoint(code);
    }
    if (ch === "\r" && this.src[this.pos] === "\n") this.pos++;
    if (ch === "\n" || ch === "\r" || ch === "\u2028" || ch === "\u2029") return "";
    if (/[1-9]/.test(ch) || ch === "") throw NOT_LITERAL;
    return ch;
  }

  array(): unknown[] {
    this.pos++;
    const out: unknown[] = [];
    while (!this.eat("]")) {
      out.push(this.value());
      if (!this.eat(",") && this.peek() !== "]") throw NOT_LITERAL;
    }
    return out;
  }

  object(): Record<string, unknown> {
    this.pos++;
    const out: Record<string, unknown> = {};
    while (!this.eat("}")) {
      const key = this.key();
      if (!this.eat(":")) throw NOT_LITERAL;
      setOwn(out, key, this.value());
      if (!this.eat(",") && this.peek() !== "}") throw NOT_LITERAL;
    }
    return out;
  }

  key(): string {
    const ch = this.peek();
    if (ch === '"' || ch === "'") return this.string(ch);
    if (/\d/.test(ch)) return String(this.number());
    const word = IDENTIFIER.exec(this.src.slice(this.pos))?.[0];
    if (!word) throw NOT_LITERAL;
    this.pos += word.length;
    return word;
  }
}

export function parseLiteral(source: string): LiteralResult {
  const reader = new Reader(source);
  try {
    const value = reader.value();
    reader.skipSpace();
    return reader.pos === source.length ? { ok: true, value } : NOT_LITERAL;
  } catch (err) {
    if (err === NOT_LITERAL) return NOT_LITERAL;
    throw err;
  }
}
