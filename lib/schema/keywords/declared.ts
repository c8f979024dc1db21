// `properties` + `required` over the declared names: the hottest loop of tool-argument
// validation. A loop reading `v[names[i]]` pays for a keyed, shape-polymorphic load per
// property (about 5× the hand-written check), so the reader is generated once per schema
// with constant-name loads, each child check called from its own site, which lets V8
// inline-cache the loads and inline the children. Only JSON.stringify'd names and indices
// enter the generated text. Where code generation is disabled, a plain loop is used.
import { isRecord } from "../../util/guards.ts";
import { escapeSegment, generate, hasOwn, typeError, type Check } from "./shared.ts";

export interface DeclaredPlan {
  names: string[];
  /** The child check per name, null for names that are only `required`. */
  checks: Array<Check | null>;
  required: boolean[];
  /** With `type: "object"`, a non-object is an error rather than out of scope. */
  strict: boolean;
}

// Names Object.prototype also has (`toString`, `__proto__`) need an own-property test;
// for the rest a plain read is the same and much cheaper. An own property holding
// `undefined` counts as absent, as it is once serialised to JSON.
const inherited = (name: string) => name in Object.prototype;

function generated(plan: DeclaredPlan, fallback: Check): Check {
  const lines = [
    `if (typeof v !== "object" || v === null || Array.isArray(v)) return ${plan.strict ? 'typeError(e, p, "object")' : "true"};`,
    "let ok = true;",
    "let x;",
  ];
  plan.names.forEach((name, i) => {
    const key = JSON.stringify(name);
    const path = `p + ${JSON.stringify(`/${escapeSegment(name)}`)}`;
    lines.push(inherited(name) ? `x = hasOwn(v, ${key}) ? v[${key}] : undefined;` : `x = v[${key}];`);
    const present = plan.checks[i] ? `if (!c${i}(x, e === null ? p : ${path}, e)) { if (e === null) return false; ok = false; }` : "";
    const absent = plan.required[i] ? `else { if (e === null) return false; ok = false; e.push({ path: ${path}, message: "is required" }); }` : "";
    lines.push(`if (x !== undefined) { ${present} } ${absent}`);
  });
  lines.push("return ok;");
  const params = ["typeError", "hasOwn", ...plan.checks.map((_, i) => `c${i}`)];
  return generate(params, [typeError, hasOwn, ...plan.checks], `return function declared(v, p, e) {\n${lines.join("\n")}\n};`, fallback);
}

export function looped(plan: DeclaredPlan): Check {
  const { names, checks, required, strict } = plan;
  const n = names.length;
  const segments = names.map((name) => `/${escapeSegment(name)}`);
  const own = names.map(inherited);
  return (v, p, e) => {
    if (!isRecord(v)) return !strict || typeError(e, p, "object");
    let ok = true;
    for (let i = 0; i < n; i++) {
      const name = names[i]!;
      const x = own[i] && !hasOwn(v, name) ? undefined : v[name];
      if (x !== undefined) {
        const check = checks[i];
        if (check != null && !check(x, e === null ? p : p + segments[i], e)) {
          if (e === null) return false;
          ok = false;
        }
      } else if (required[i]) {
        if (e === null) return false;
        ok = false;
        e.push({ path: p + segments[i], message: "is required" });
      }
    }
    return ok;
  };
}

export function declaredCheck(plan: DeclaredPlan): Check {
  return generated(plan, looped(plan));
}
