/** The agent layer's logging seam. Callers inject one; the default writes warnings and errors to stderr. */
export interface AgentLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const noop = (): void => {};

export const consoleLogger: AgentLogger = {
  debug: noop,
  info: noop,
  warn: (message, fields) => console.warn(`[agent] ${message}`, fields ?? ""),
  error: (message, fields) => console.error(`[agent] ${message}`, fields ?? ""),
};

/**
 * consoleLogger that also writes info lines, to stdout: for output a person turned on to read, such as
 * the logging extension's (the default logger keeps the server log to warnings and errors).
 */
export const verboseConsoleLogger: AgentLogger = {
  ...consoleLogger,
  info: (message, fields) => (fields ? console.log(`[agent] ${message}`, fields) : console.log(`[agent] ${message}`)),
};

export const silentLogger: AgentLogger = { debug: noop, info: noop, warn: noop, error: noop };

export interface LogRecord {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  fields?: Record<string, unknown>;
}

/** A logger that remembers what it was told; for tests and the logging hook's own checks. */
export function recordingLogger(): AgentLogger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  const at =
    (level: LogRecord["level"]) =>
    (message: string, fields?: Record<string, unknown>): void => {
      records.push({ level, message, fields });
    };
  return { records, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
