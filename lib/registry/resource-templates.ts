// Resource templates: a URI with `{name}` holes (RFC 6570 simple expansion). A read whose
// URI fits the template calls the handler with the values found in the holes.
import { checkIcons, checkCompleters, withOptional, type Completer } from "./common.ts";
import { shapeResourceContent, type ResourceContent, type ResourceOptions } from "./resources.ts";

export interface ResourceTemplateOptions extends ResourceOptions {
  /** Suggests values for a template variable (`completion/complete`). */
  complete?: Record<string, Completer>;
}

/** Who reads: the MCP session of the request (null without one), for resources private to a session. */
export interface ReadScope {
  readonly sessionId: string | null;
}

/** Called with the variables of the URI that was read, that URI, and who reads it. */
export type ResourceTemplateHandler = (variables: Record<string, string>, uri: string, scope: ReadScope) => unknown;

export interface RegisteredTemplate {
  readonly uriTemplate: string;
  readonly variables: readonly string[];
  readonly entry: Record<string, unknown>;
  readonly completers: ReadonlyMap<string, Completer>;
  /** The variables when `uri` fits this template, else null. */
  match(uri: string): Record<string, string> | null;
  read(uri: string, variables: Record<string, string>, scope?: ReadScope): Promise<ResourceContent>;
}

const HOLE = /\{([A-Za-z0-9_]+)\}/g;

export function isUriTemplate(uri: string): boolean {
  return /\{[^}]*\}/.test(uri);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Compiles `a://x/{id}/y` to a matcher; a hole matches one non-empty path segment. */
function compileTemplate(template: string): { variables: string[]; pattern: RegExp } {
  const leftovers = template.replace(HOLE, "");
  if (/[{}]/.test(leftovers)) {
    throw new TypeError(`Resource template ${JSON.stringify(template.slice(0, 200))}: only {name} holes (letters, digits, _) are supported`);
  }
  const variables: string[] = [];
  let source = "^";
  let last = 0;
  for (const m of template.matchAll(HOLE)) {
    const name = m[1]!;
    if (variables.includes(name)) throw new TypeError(`Resource template ${template}: variable {${name}} appears twice`);
    variables.push(name);
    source += escapeRegExp(template.slice(last, m.index)) + "([^/?#]+)";
    last = m.index + m[0].length;
  }
  source += escapeRegExp(template.slice(last)) + "$";
  return { variables, pattern: new RegExp(source) };
}

function decode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

export function defineResourceTemplate(uriTemplate: string, handler: ResourceTemplateHandler, options: ResourceTemplateOptions): RegisteredTemplate {
  if (typeof uriTemplate !== "string" || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uriTemplate)) {
    throw new TypeError(`Resource template ${JSON.stringify(String(uriTemplate).slice(0, 200))} must start with a scheme (e.g. "data://{id}")`);
  }
  if (typeof handler !== "function") throw new TypeError(`Resource template ${uriTemplate}: the handler must be a function`);
  const { variables, pattern } = compileTemplate(uriTemplate);
  const completers = checkCompleters(`Resource template ${uriTemplate}`, options.complete, variables);
  const mimeType = options.mimeType;
  const entry = withOptional({ uriTemplate, name: options.name ?? (handler.name || uriTemplate) } as Record<string, unknown>, {
    title: options.title,
    description: options.description,
    mimeType,
    icons: checkIcons(`Resource template ${uriTemplate}`, options.icons),
    _meta: options._meta,
  });
  return {
    uriTemplate,
    variables,
    entry,
    completers,
    match(uri) {
      const m = pattern.exec(uri);
      if (!m) return null;
      const out: Record<string, string> = {};
      for (const [i, name] of variables.entries()) {
        const value = decode(m[i + 1]!);
        if (value === null) return null;
        out[name] = value;
      }
      return out;
    },
    read: async (uri, vars, scope = { sessionId: null }) => shapeResourceContent(uri, mimeType, await handler(vars, uri, scope), options._meta),
  };
}
