// Reading the Cookie request header, decided once: `name=value` parts separated by `;`, names
// and values trimmed, the first part with a name winning. Values come back as sent (no
// percent-decoding): what a value means is the caller's.

function nameOf(part: string): string | undefined {
  const eq = part.indexOf("=");
  const name = eq === -1 ? "" : part.slice(0, eq).trim();
  return name === "" ? undefined : name;
}

const partValue = (part: string): string => part.slice(part.indexOf("=") + 1).trim();

/** The value of cookie `name` in a Cookie header; undefined when it is absent. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) if (nameOf(part) === name) return partValue(part);
  return undefined;
}

/**
 * Cookie `name` taken out of a Cookie header: its (first) value, and the header holding every
 * other part, or undefined when nothing else is left.
 */
export function takeCookie(header: string | undefined, name: string): { value: string | undefined; rest: string | undefined } {
  let value: string | undefined;
  const kept: string[] = [];
  for (const part of (header ?? "").split(";")) {
    if (nameOf(part) === name) value ??= partValue(part);
    else if (part.trim() !== "") kept.push(part.trim());
  }
  return { value, rest: kept.length > 0 ? kept.join("; ") : undefined };
}
