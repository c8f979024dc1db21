// One router for the tool server, the gateway and the OAuth server: a table of path
// patterns, each with a list of steps per method, and the one place that decides 404 or 405
// with Allow, HEAD (a GET route answers it; node:http drops the body) and OPTIONS (the
// route's CORS preflight, with Allow). Synchronous all the way while every step is: only a
// step that returns a promise makes the request wait on one (the tool server's hot path).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CorsProfile } from "./cors.ts";

/** What a step returns (or resolves to) to hand the request on; anything else means it answered. */
export const NEXT = Symbol("next");
/** One link of a route: a guard, a CORS profile, a bearer check, a rate limit, the handler. */
export type Step<C> = (req: IncomingMessage, res: ServerResponse, ctx: C) => unknown;

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
/** `ANY`: a sub-application that decides its own methods (OPTIONS too where the route has no CORS profile). */
type MethodKey = Method | "ANY";
const ORDER: readonly Method[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

export interface RouteEntry<C> {
  /** `/mcp`, `/api/mcp/:tool/mcp` (a param is one non-empty segment), `/console/*` (the rest, maybe empty, in `params["*"]`). */
  path: string;
  methods: Partial<Record<MethodKey, Step<C> | readonly Step<C>[]>>;
  /** Steps before each method's own. */
  before?: readonly Step<C>[];
  /** HEAD answered as GET; on unless false (a GET that opens a stream or mints state must not). */
  head?: boolean;
  /** The preflight OPTIONS answers with; the router's by default; null answers 204 with Allow alone. */
  cors?: CorsProfile | null;
}

export type Params = Record<string, string>;

/** A route with what its path's params matched. */
export interface Match<C> {
  readonly route: CompiledRoute<C>;
  readonly params: Params;
}

export interface RouterOptions<C> {
  /** Steps every request passes first, matched or not (a host guard). */
  before?: readonly Step<C>[];
  /** OPTIONS' preflight where a route names none. */
  cors?: CorsProfile | null;
  notFound: (req: IncomingMessage, res: ServerResponse, ctx: C) => void;
  methodNotAllowed: (req: IncomingMessage, res: ServerResponse, ctx: C, allow: string) => void;
  /** A step threw or rejected. */
  failed: (err: unknown, req: IncomingMessage, res: ServerResponse, ctx: C) => void;
}

interface CompiledRoute<C> {
  /** The pattern, as the table wrote it. */
  readonly path: string;
  readonly segments: readonly string[];
  readonly rest: boolean;
  readonly steps: ReadonlyMap<string, readonly Step<C>[]>;
  readonly allow: string;
  readonly preflight: Readonly<Record<string, string>>;
}

export class Router<C extends { params: Params }> {
  readonly #static = new Map<string, CompiledRoute<C>>();
  readonly #patterns: CompiledRoute<C>[] = [];
  readonly #options: RouterOptions<C>;
  readonly #unmatched: readonly Step<C>[];

  constructor(routes: readonly RouteEntry<C>[], options: RouterOptions<C>) {
    this.#options = options;
    const before = options.before ?? [];
    this.#unmatched = [...before, (req, res, ctx) => options.notFound(req, res, ctx)];
    for (const entry of routes) {
      const route = compile(entry, before, entry.cors === undefined ? (options.cors ?? null) : entry.cors);
      const dynamic = route.rest || route.segments.some((s) => s.startsWith(":"));
      if (!dynamic && !this.#static.has(entry.path)) this.#static.set(entry.path, route);
      else if (dynamic) this.#patterns.push(route);
    }
  }

  /** The route serving `path` (no query), first in table order; undefined when none does. */
  match(path: string): Match<C> | undefined {
    const fixed = this.#static.get(path);
    if (fixed) return { route: fixed, params: NO_PARAMS };
    const parts = path.split("/");
    for (const route of this.#patterns) {
      const params = matchSegments(route, parts);
      if (params) return { route, params };
    }
    return undefined;
  }

  /** Answers one request: the router's steps, then the match's (404 when none), and every failure. Never throws. */
  serve(match: Match<C> | undefined, req: IncomingMessage, res: ServerResponse, ctx: C): void | Promise<void> {
    let steps: readonly Step<C>[];
    if (!match) steps = this.#unmatched;
    else {
      ctx.params = match.params;
      steps = this.#stepsFor(match.route, req.method ?? "GET");
    }
    try {
      const done = run(steps, 0, req, res, ctx);
      if (done) return done.catch((err: unknown) => this.#options.failed(err, req, res, ctx));
    } catch (err) {
      this.#options.failed(err, req, res, ctx);
    }
  }

  #stepsFor(route: CompiledRoute<C>, method: string): readonly Step<C>[] {
    const steps = route.steps.get(method);
    if (steps) return steps;
    const allow = route.allow;
    const o = this.#options;
    if (method === "OPTIONS") {
      return [...(route.steps.get("*") ?? []), (_req, res) => void res.writeHead(204, { ...route.preflight, allow }).end()];
    }
    return [...(route.steps.get("*") ?? []), (req, res, ctx) => o.methodNotAllowed(req, res, ctx, allow)];
  }
}

const NO_PARAMS: Params = Object.freeze({});

function compile<C>(entry: RouteEntry<C>, first: readonly Step<C>[], cors: CorsProfile | null): CompiledRoute<C> {
  const segments = entry.path.split("/");
  const rest = segments.at(-1) === "*";
  if (rest) segments.pop();
  const steps = new Map<string, readonly Step<C>[]>();
  const list = (own: Step<C> | readonly Step<C>[]): readonly Step<C>[] => [...first, ...(entry.before ?? []), ...(Array.isArray(own) ? own : [own as Step<C>])];
  const any = entry.methods.ANY;
  // What a refused method still passes through (the host guard): the steps before every method's own.
  steps.set("*", [...first]);
  // A preflight is the router's to answer where the route has a CORS profile, the sub-application's otherwise.
  if (any) for (const method of [...ORDER, "HEAD", ...(cors ? [] : ["OPTIONS"])]) steps.set(method, list(any));
  for (const method of ORDER) {
    const own = entry.methods[method];
    if (own) steps.set(method, list(own));
  }
  const head = entry.head !== false && entry.methods.GET !== undefined;
  if (head) steps.set("HEAD", steps.get("GET")!);
  const allowed = ORDER.filter((m) => entry.methods[m]);
  if (head) allowed.splice(1, 0, "HEAD" as Method);
  const allow = [...allowed, "OPTIONS"].join(", ");
  return Object.freeze({ path: entry.path, segments, rest, steps, allow, preflight: cors?.preflight ?? {} });
}

function matchSegments<C>(route: CompiledRoute<C>, parts: readonly string[]): Params | undefined {
  const { segments } = route;
  if (route.rest ? parts.length < segments.length + 1 : parts.length !== segments.length) return undefined;
  let params: Params | undefined;
  for (let i = 0; i < segments.length; i++) {
    const want = segments[i]!;
    const got = parts[i]!;
    if (want.startsWith(":")) {
      if (got === "") return undefined;
      (params ??= {})[want.slice(1)] = got;
    } else if (want !== got) return undefined;
  }
  if (route.rest) (params ??= {})["*"] = parts.slice(segments.length).join("/");
  return params ?? NO_PARAMS;
}

/** Runs steps from `i` until one answers; a promise only from the first step that returns one. */
function run<C>(steps: readonly Step<C>[], i: number, req: IncomingMessage, res: ServerResponse, ctx: C): Promise<void> | undefined {
  for (; i < steps.length; i++) {
    const result = steps[i]!(req, res, ctx);
    if (result === NEXT) continue;
    if (result instanceof Promise) {
      const at = i + 1;
      return result.then((r) => (r === NEXT ? run(steps, at, req, res, ctx) : undefined));
    }
    return undefined;
  }
  return undefined;
}
