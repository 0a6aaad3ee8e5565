/**
 * The Host names this server answers. A page on another name that resolves to this machine (DNS
 * rebinding: evil.example first points at the attacker, then at 127.0.0.1) would otherwise be same-origin
 * with the API from the browser's point of view. Loopback names are always allowed; others are listed
 * in MODEX_ALLOWED_HOSTS (`*` allows every name, for a server behind a proxy that checks names itself).
 */
export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/** The name part of a Host header, lower-cased, without its port: `[::1]:3000` → `[::1]`. */
export function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    return end > 0 ? h.slice(0, end + 1) : h;
  }
  const colon = h.indexOf(":");
  return colon >= 0 ? h.slice(0, colon) : h;
}

/** Whether a Host header names this server; a missing one never does. */
export function isAllowedHost(host: string | null | undefined, allowed: readonly string[]): boolean {
  if (!host) return false;
  if (allowed.includes("*")) return true;
  const name = hostnameOf(host);
  return LOOPBACK_HOSTS.includes(name) || allowed.some((a) => hostnameOf(a) === name);
}
