// Binary payloads (images, audio, resource blobs) travel as base64 text in MCP.

export type Binary = Uint8Array | ArrayBuffer | string;

/** Raw bytes to base64; a string is taken as already encoded. */
export function base64(data: Binary): string {
  if (typeof data === "string") return data;
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}
