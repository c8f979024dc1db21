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

/** What `completion/complete` passes a completer besides the typed text. */
export interface CompletionContext {
  /** Values the client already holds for the other arguments. */
  arguments: Record<string, string>;
}

/** Suggests values for one prompt argument or template variable, best first. */
export type Completer = (value: string, context: CompletionContext) => readonly string[] | Promise<readonly string[]>;

export function checkCompleters(owner: string, complete: unknown, names: readonly string[]): ReadonlyMap<string, Completer> {
  const out = new Map<string, Completer>();
  if (complete === undefined) return out;
  if (typeof complete !== "object" || complete === null) throw new TypeError(`${owner}: complete must be an object of functions`);
  for (const [name, fn] of Object.entries(complete)) {
    if (!names.includes(name)) throw new TypeError(`${owner}: complete names "${name}", which is not one of its arguments`);
    if (typeof fn !== "function") throw new TypeError(`${owner}: complete.${name} must be a function`);
    out.set(name, fn as Completer);
  }
  return out;
}
