// Cursor pagination shared by every list method (MCP 2025-11-25 utilities/pagination).
// The cursor is opaque to clients: a versioned position, base64url-encoded (an offset for
// the registries, the last task's sequence number for tasks/list).
import { invalidParams } from "../errors.ts";

const PREFIX = "p1:";

export function encodeCursor(offset: number): string {
  return Buffer.from(`${PREFIX}${offset}`).toString("base64url");
}

export function decodeCursor(cursor: unknown): number {
  if (cursor === undefined || cursor === null) return 0;
  if (typeof cursor === "string" && cursor.length <= 64 && /^[A-Za-z0-9_-]+$/.test(cursor)) {
    const text = Buffer.from(cursor, "base64url").toString("utf8");
    if (text.startsWith(PREFIX) && /^\d{1,15}$/.test(text.slice(PREFIX.length))) return Number(text.slice(PREFIX.length));
  }
  throw invalidParams("Invalid params: unknown cursor");
}

/** One page of `items` from `params.cursor`, with `nextCursor` when more follow. */
export function paginate<T>(items: Iterable<T>, params: Record<string, unknown>, pageSize: number, key: string): Record<string, unknown> {
  const all = Array.from(items);
  const start = decodeCursor(params.cursor);
  if (start > all.length) throw invalidParams("Invalid params: unknown cursor");
  const end = start + pageSize;
  const page: Record<string, unknown> = { [key]: all.slice(start, end) };
  if (end < all.length) page.nextCursor = encodeCursor(end);
  return page;
}
