/**
 * modexctl's errors and exit codes. Every failure is a CliError: a literal `code` (the server's own
 * error code when a Modex server answered, else one of CLI_CODES), the exit code, and the HTTP status
 * when there was one. `--json` prints it as `{"error":{"code","message","status"?,"issues"?}}`.
 */

/** Exit codes, documented in `modexctl --help` and the README. */
export const EXIT = /** @type {const} */ ({
  OK: 0,
  /** A usage error, an unreachable or non-Modex server, a refused command (409), a server error. */
  ERROR: 1,
  NOT_FOUND: 2,
  NOT_AUTHORIZED: 3,
  /** run --wait: the run paused waiting for a human (answer it with `modexctl answer`). */
  WAITING_FOR_HUMAN: 4,
  /** run --wait: the run ended failed or stopped, crashed, or was paused by someone. */
  NOT_COMPLETED: 5,
  /** run --wait: still running when --timeout ran out. */
  TIMED_OUT: 6,
});

/** Codes of failures modexctl finds itself (a Modex server's error answers carry their own code). */
export const CLI_CODES = /** @type {const} */ ({
  USAGE: "USAGE",
  UNREACHABLE: "UNREACHABLE",
  NOT_MODEX: "NOT_MODEX",
  NO_ROUTE: "NO_ROUTE",
  RECONNECT_GAVE_UP: "RECONNECT_GAVE_UP",
  HTTP_ERROR: "HTTP_ERROR",
  INTERNAL: "INTERNAL",
  /** apply / validate: a spec file that could not be read (missing, a directory, no permission). */
  UNREADABLE_FILE: "UNREADABLE_FILE",
});

export class CliError extends Error {
  /**
   * @param {string} message
   * @param {{ code: string, exitCode?: number, status?: number, issues?: unknown[], transient?: boolean }} details
   *   transient: a dropped connection or a 502/503/504, worth retrying (a restart, a proxy's hiccup)
   */
  constructor(message, { code, exitCode = EXIT.ERROR, status, issues, transient = false }) {
    super(message);
    this.name = "CliError";
    this.code = code;
    this.exitCode = exitCode;
    this.status = status;
    this.issues = issues;
    this.transient = transient;
  }

  toJSON() {
    const error = { code: this.code, message: this.message };
    if (this.status !== undefined) error.status = this.status;
    if (this.issues?.length) error.issues = this.issues;
    return { error };
  }
}

export const isCliError = (e) => e instanceof CliError;

/** Any throw as a CliError (an unexpected one is INTERNAL, exit 1). */
export function toCliError(error) {
  if (isCliError(error)) return error;
  return new CliError(error instanceof Error ? error.message : String(error), { code: CLI_CODES.INTERNAL });
}

/** The statuses a retry (same Idempotency-Key) or a reconnect may outlast. */
export const TRANSIENT_STATUSES = new Set([502, 503, 504]);

/** A Modex server's error answer `{ error: { code, message, issues? } }` → a CliError. */
export function errorForStatus({ status, error, token }) {
  const code = typeof error?.code === "string" ? error.code : CLI_CODES.HTTP_ERROR;
  const message = error?.message ?? `HTTP ${status}`;
  const issues = Array.isArray(error?.issues) ? error.issues : undefined;
  const details = { code, status, issues, transient: TRANSIENT_STATUSES.has(status) };
  if (status === 401) {
    const hint = token ? "the token was not accepted" : "no token: pass --token, set MODEX_TOKEN, or run where the server's data directory is";
    return new CliError(`not authorized: ${hint}`, { ...details, exitCode: EXIT.NOT_AUTHORIZED });
  }
  if (status === 403) return new CliError(`forbidden: ${message}`, { ...details, exitCode: EXIT.NOT_AUTHORIZED });
  // The server's own message usually says "… not found" already: "not found: chat 7 not found" said it twice.
  if (status === 404) return new CliError(/\bnot found\b/i.test(message) ? message : `not found: ${message}`, { ...details, exitCode: EXIT.NOT_FOUND });
  if (status === 409) return new CliError(`refused: ${message}`, details);
  if (status === 400) return new CliError(`bad request: ${message}${renderIssues(issues)}`, details);
  return new CliError(`server error (HTTP ${status}): ${message}`, details);
}

function renderIssues(issues) {
  if (!issues) return "";
  return issues
    .map((i) => {
      const where = [i.pathText ?? (i.path ?? []).join("."), i.line ? `(line ${i.line}, column ${i.column})` : ""].filter(Boolean).join(" ");
      return `\n  - ${where}${i.path?.length || i.pathText ? ": " : ""}${i.message}`;
    })
    .join("");
}
