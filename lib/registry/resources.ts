// Resource registration and the shaping of what a resource handler returns.
import { base64 } from "../util/base64.ts";
import { checkIcons, withOptional, type Icon } from "./common.ts";

export interface ResourceOptions {
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

export type ResourceHandler = (...args: never[]) => unknown;

export interface ResourceContent {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  _meta?: Record<string, unknown>;
}

export interface RegisteredResource {
  readonly uri: string;
  readonly mimeType: string | undefined;
  readonly entry: Record<string, unknown>;
  read(): Promise<ResourceContent>;
}

/** MCP Apps: an HTML template under `ui://` is served with this type unless told otherwise. */
export const APP_HTML_MIME = "text/html;profile=mcp-app";

function isBytes(value: unknown): value is Uint8Array | ArrayBuffer {
  return value instanceof Uint8Array || value instanceof ArrayBuffer;
}

export function shapeResourceContent(uri: string, mimeType: string | undefined, value: unknown, meta?: Record<string, unknown>): ResourceContent {
  const out: ResourceContent = { uri };
  if (typeof value === "string") {
    if (mimeType) out.mimeType = mimeType;
    out.text = value;
  } else if (isBytes(value)) {
    out.mimeType = mimeType ?? "application/octet-stream";
    out.blob = base64(value);
  } else {
    out.mimeType = mimeType ?? "application/json";
    out.text = JSON.stringify(value ?? null);
  }
  if (meta) out._meta = meta;
  return out;
}

export function defineResource(uri: string, handler: ResourceHandler, options: ResourceOptions): RegisteredResource {
  if (typeof uri !== "string" || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) {
    throw new TypeError(`Resource URI ${JSON.stringify(String(uri).slice(0, 200))} must start with a scheme (e.g. "config://...")`);
  }
  if (typeof handler !== "function") throw new TypeError(`Resource ${uri}: the handler must be a function`);
  const mimeType = options.mimeType ?? (uri.startsWith("ui://") ? APP_HTML_MIME : undefined);
  const entry = withOptional({ uri, name: options.name ?? (handler.name || uri) } as Record<string, unknown>, {
    title: options.title,
    description: options.description,
    mimeType,
    size: options.size,
    icons: checkIcons(`Resource ${uri}`, options.icons),
    _meta: options._meta,
  });
  const fn = handler as () => unknown;
  return {
    uri,
    mimeType,
    entry,
    read: async () => shapeResourceContent(uri, mimeType, await fn(), options._meta),
  };
}
