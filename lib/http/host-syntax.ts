// The syntax of a host as a Host header or an allow-list entry (`allowedHosts`, start_mcp
// --allowed-host) names it, decided once: a name or IPv4 literal, or a bracketed IPv6 literal,
// optionally with `:port`.

const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/** Whether `value` is `name`, `name:port`, `[v6]` or `[v6]:port`. */
export function isHostSyntax(value: string): boolean {
  return HOST.test(value);
}

/** The name part: "a.b:80" → "a.b"; "[::1]:80" → "[::1]" (brackets kept). */
export function hostName(host: string): string {
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}
