/**
 * The Content-Security-Policy of the app's pages, sent by proxy.ts with a fresh nonce per request.
 * Next.js reads the nonce from the policy on the request and puts it on every script it renders, and
 * 'strict-dynamic' extends the trust to the chunks those scripts load, so no other script runs: not an
 * injected inline one, not one from another origin. What the app needs besides:
 *
 * - styles: Monaco and React Flow set inline styles and inject <style> elements ('unsafe-inline';
 *   styles cannot run code);
 * - workers: Monaco's editor and YAML workers, the spec-topology worker and ELK's layout worker are
 *   same-origin files ('self'; blob: for a worker a library builds from a blob URL);
 * - images and fonts: same origin, plus data: URLs (Monaco's codicon font, React Flow's markers);
 * - connections: same origin only (tRPC, SSE).
 *
 * `next dev` evaluates code for its fast refresh ('unsafe-eval' in development only). Framing is refused
 * ('frame-ancestors' here, X-Frame-Options in next.config.mjs for old browsers).
 */
export function pageContentSecurityPolicy(options: { nonce: string; development?: boolean }): string {
  const scripts = [`'self'`, `'nonce-${options.nonce}'`, `'strict-dynamic'`, ...(options.development ? [`'unsafe-eval'`] : [])];
  return [
    "default-src 'self'",
    `script-src ${scripts.join(" ")}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "worker-src 'self' blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** A nonce: 128 random bits, base64 (what CSP nonces are). */
export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}

/** The nonce in a page policy (the request's, as proxy.ts set it); undefined when there is none. */
export function nonceOf(policy: string | null): string | undefined {
  return policy?.match(/'nonce-([^']+)'/)?.[1];
}
