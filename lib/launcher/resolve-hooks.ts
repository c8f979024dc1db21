// Module resolve hooks that start_mcp installs before importing a JavaScript app that
// has no hubmcp of its own: `import ... from "hubmcp"` then resolves to the copy of hubmcp
// that is running, so one copied folder serves many tool apps. (Compiled TypeScript apps
// need no hooks: their imports are rewritten when they are compiled.)

export interface ResolveHookData {
  /** File URL of the running copy's `lib/index`. */
  self: string;
}

interface ResolveContext {
  parentURL?: string | undefined;
  conditions?: readonly string[];
}
interface ResolveResult {
  url: string;
  format?: string | null | undefined;
  shortCircuit?: boolean;
}
type NextResolve = (specifier: string, context?: ResolveContext) => ResolveResult | Promise<ResolveResult>;

const SELF = "hubmcp";
let data: ResolveHookData = { self: "" };

export function initialize(given: ResolveHookData): void {
  data = given;
}

function missing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND";
}

/** For module.register (a loader thread). */
export async function resolve(specifier: string, context: ResolveContext, next: NextResolve): Promise<ResolveResult> {
  try {
    return await next(specifier, context);
  } catch (err) {
    // Through the later hooks too (tsx, when running from source).
    if (specifier === SELF && missing(err) && data.self) return next(data.self, context);
    throw err;
  }
}

/** For module.registerHooks (same thread, Node >= 22.15), with the same rule. */
export function resolveSync(specifier: string, context: ResolveContext, next: (s: string, c?: ResolveContext) => ResolveResult): ResolveResult {
  try {
    return next(specifier, context);
  } catch (err) {
    if (specifier === SELF && missing(err) && data.self) return next(data.self, context);
    throw err;
  }
}
