// Options shared by tools, resources and prompts, and their checks at registration.

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function checkName(kind: string, name: string): string {
  if (!NAME.test(name)) {
    throw new TypeError(`${kind} name ${JSON.stringify(name.slice(0, 140))} is invalid: use 1-128 characters of A-Z a-z 0-9 _ . -`);
  }
  return name;
}

/** The handler's own name, without the `bound ` that Function.prototype.bind adds. */
export function handlerName(fn: Function): string {
  return fn.name.replace(/^(bound )+/, "");
}

export function checkIcons(owner: string, icons: unknown): Icon[] | undefined {
  if (icons === undefined) return undefined;
  if (!Array.isArray(icons) || !icons.every((i) => typeof i === "object" && i !== null && typeof (i as Icon).src === "string")) {
    throw new TypeError(`${owner}: icons must be an array of {src, mimeType?, sizes?, theme?}`);
  }
  return icons as Icon[];
}

/** Copies the defined optional fields onto an entry, so lists never carry `undefined`. */
export function withOptional<T extends object>(entry: T, extra: Record<string, unknown>): T {
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) (entry as Record<string, unknown>)[key] = value;
  return entry;
}
