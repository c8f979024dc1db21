// `<enable>` conditions: when an input takes part, decided from other inputs' values. Rappture
// evaluates them as Tcl expressions over input paths; hubmcp reads the part tools use —
// comparisons of an input with a literal (`==`, `!=`, `<`, `<=`, `>`, `>=`), a bare boolean
// input, `!`, `&&`, `||` and parentheses, plus the literal `yes`/`no` — and reports anything
// else as unreadable so the input is treated as always enabled (and its description says so).

export type Condition =
  | { kind: "literal"; value: boolean }
  | { kind: "truthy"; path: string }
  | { kind: "compare"; path: string; op: string; value: string }
  | { kind: "not"; of: Condition }
  | { kind: "and" | "or"; left: Condition; right: Condition };

const OPERATORS = ["&&", "||", "==", "!=", "<=", ">=", "<", ">", "!", "(", ")"];

/** Splits a condition; a path keeps the parentheses glued to its words (`input.choice(model)`). */
function tokens(text: string): string[] | undefined {
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    const c = text[at]!;
    if (/\s/.test(c)) {
      at++;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = text.indexOf(c, at + 1);
      if (end < 0) return undefined;
      out.push(text.slice(at, end + 1));
      at = end + 1;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, at));
    if (op) {
      out.push(op);
      at += op.length;
      continue;
    }
    let end = at;
    while (end < text.length) {
      if (/[-\w.:]/.test(text[end]!)) end++;
      else if (text[end] === "(" && end > at && /\w/.test(text[end - 1]!)) {
        const close = text.indexOf(")", end);
        if (close < 0) return undefined;
        end = close + 1;
      } else break;
    }
    if (end === at) return undefined;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

const TRUE = new Set(["yes", "on", "true", "1"]);
const FALSE = new Set(["no", "off", "false", "0"]);
const COMPARE = new Set(["==", "!=", "<", "<=", ">", ">="]);

/** A condition, or undefined when the text is outside what hubmcp reads. */
export function parseCondition(text: string): Condition | undefined {
  const list = tokens(text.trim());
  if (!list || list.length === 0) return undefined;
  let i = 0;
  const unquote = (t: string): string => (/^["']/.test(t) ? t.slice(1, -1) : t);
  const primary = (): Condition | undefined => {
    const t = list[i++];
    if (t === undefined) return undefined;
    if (t === "!") {
      const of = primary();
      return of && { kind: "not", of };
    }
    if (t === "(") {
      const inner = or();
      return list[i++] === ")" ? inner : undefined;
    }
    if (list[i] !== undefined && COMPARE.has(list[i]!)) {
      const op = list[i++]!;
      const value = list[i++];
      return value === undefined ? undefined : { kind: "compare", path: unquote(t), op, value: unquote(value) };
    }
    if (TRUE.has(t)) return { kind: "literal", value: true };
    if (FALSE.has(t)) return { kind: "literal", value: false };
    return /^input\./.test(t) ? { kind: "truthy", path: t } : undefined;
  };
  const and = (): Condition | undefined => {
    let left = primary();
    while (left && list[i] === "&&") {
      i++;
      const right = primary();
      left = right && { kind: "and", left, right };
    }
    return left;
  };
  const or = (): Condition | undefined => {
    let left = and();
    while (left && list[i] === "||") {
      i++;
      const right = and();
      left = right && { kind: "or", left, right };
    }
    return left;
  };
  const condition = or();
  return i === list.length ? condition : undefined;
}

/** Whether a condition holds, given each input's current value by its Rappture path. */
export function holds(condition: Condition, valueAt: (path: string) => string | undefined): boolean {
  switch (condition.kind) {
    case "literal":
      return condition.value;
    case "truthy":
      return TRUE.has((valueAt(condition.path) ?? "").toLowerCase());
    case "not":
      return !holds(condition.of, valueAt);
    case "and":
      return holds(condition.left, valueAt) && holds(condition.right, valueAt);
    case "or":
      return holds(condition.left, valueAt) || holds(condition.right, valueAt);
    case "compare": {
      const actual = valueAt(condition.path) ?? "";
      const [a, b] = [Number.parseFloat(actual), Number.parseFloat(condition.value)];
      const numeric = Number.isFinite(a) && Number.isFinite(b);
      const order = numeric ? a - b : actual < condition.value ? -1 : actual > condition.value ? 1 : 0;
      switch (condition.op) {
        case "==":
          return numeric ? order === 0 : actual === condition.value;
        case "!=":
          return numeric ? order !== 0 : actual !== condition.value;
        case "<":
          return order < 0;
        case "<=":
          return order <= 0;
        case ">":
          return order > 0;
        default:
          return order >= 0;
      }
    }
  }
}
