// Content blocks of MCP 2025-11-25 (server/tools "Tool Result") and small helpers that build them.
import { base64, type Binary } from "../util/base64.ts";

export interface Annotations {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
}
interface BlockBase {
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
}
export interface TextContent extends BlockBase {
  type: "text";
  text: string;
}
export interface ImageContent extends BlockBase {
  type: "image";
  data: string;
  mimeType: string;
}
export interface AudioContent extends BlockBase {
  type: "audio";
  data: string;
  mimeType: string;
}
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
  | { uri: string; mimeType?: string; blob: string; _meta?: Record<string, unknown> };
export interface EmbeddedResource extends BlockBase {
  type: "resource";
  resource: ResourceContents;
}
export interface ResourceLink extends BlockBase {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

export const content = {
  text: (text: string): TextContent => ({ type: "text", text }),
  /** `data` is raw bytes, or a string that is already base64. */
  image: (data: Binary, mimeType: string): ImageContent => ({ type: "image", data: base64(data), mimeType }),
  audio: (data: Binary, mimeType: string): AudioContent => ({ type: "audio", data: base64(data), mimeType }),
  /** Embeds a resource: text when `body` is a string, base64 `blob` when it is bytes. */
  resource: (uri: string, body: string | Uint8Array | ArrayBuffer, mimeType?: string): EmbeddedResource => ({
    type: "resource",
    resource:
      typeof body === "string" ? { uri, ...(mimeType ? { mimeType } : {}), text: body } : { uri, ...(mimeType ? { mimeType } : {}), blob: base64(body) },
  }),
  link: (uri: string, name: string, extra: Omit<ResourceLink, "type" | "uri" | "name"> = {}): ResourceLink => ({
    type: "resource_link",
    uri,
    name,
    ...extra,
  }),
} as const;
