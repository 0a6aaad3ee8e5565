import { z } from "zod";

/**
 * A regular expression the built-ins compile (secret_masking's patterns with "g", approval_policy's
 * `pattern` anchored as `^(?:…)$`): checked here, so a typo is a problem of extensions.yml reported with
 * its path, not a SyntaxError thrown at start-up (which stopped the server) or at every matching call.
 */
const regex = (compile: (source: string) => RegExp, text: z.ZodString = z.string()) =>
  text.superRefine((source, ctx) => {
    try {
      compile(source);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: `not a valid regular expression: ${error instanceof Error ? error.message : String(error)}` });
    }
  });

const Matcher = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.object({ oneOf: z.array(z.unknown()) }).strict(),
  z.object({ pattern: regex((p) => new RegExp(`^(?:${p})$`)) }).strict(),
  z.object({ absent: z.literal(true) }).strict(),
]);

/** The `builtins:` sections: each present registers that built-in with its settings. */
const Builtins = z
  .object({
    secret_masking: z
      .object({
        patterns: z.array(regex((p) => new RegExp(p, "g"), z.string().min(1))).optional().describe("Regular expressions of secrets; default: common API keys and tokens."),
        replacement: z.string().optional(),
        hold_back: z.number().int().min(0).max(4096).optional(),
      })
      .strict()
      .optional(),
    logging: z.object({}).strict().optional(),
    token_budget: z
      .object({ per_turn: z.number().int().positive().optional(), per_instance: z.number().int().positive().optional() })
      .strict()
      .optional(),
    approval_policy: z
      .object({ rules: z.array(z.object({ tool: z.string().min(1), args: z.record(z.string(), Matcher).optional(), decision: z.enum(["approve", "ask"]) }).strict()) })
      .strict()
      .optional(),
  })
  .strict();

/**
 * The built-ins' names, reserved (as the spec reserves "logging" and "secret_masking"): a module may not
 * take one, even while that built-in is off, so a name on the Extensions page always means the same code.
 */
export const BUILTIN_EXTENSION_NAMES: readonly string[] = Object.keys(Builtins.shape);

/** A built-in's section at the top level is the likely slip: say where it goes. */
const builtinAtTopLevel = (issue: { code?: string; keys?: readonly string[] }): string | undefined => {
  const keys = issue.code === "unrecognized_keys" ? (issue.keys ?? []) : [];
  const builtin = keys.find((k) => k in Builtins.shape);
  if (builtin === undefined) return undefined;
  return `Unrecognized keys: ${keys.map((k) => JSON.stringify(k)).join(", ")} (built-ins go under builtins:, e.g. builtins: { ${builtin}: {} })`;
};

/**
 * `config/extensions/extensions.yml`: which built-in extensions run and their settings (a section
 * present registers that built-in; the Extensions page turns it on or off), and extension modules to
 * load besides the folder's own `*.mjs`/`*.js` files.
 */
export const ExtensionsConfigSchema = z
  .object(
    {
      builtins: Builtins.default({}),
      modules: z.array(z.string().min(1)).default([]).describe("More module files, relative to this folder or absolute."),
      call_timeout_ms: z
        .number()
        .int()
        .positive()
        .max(2_147_483_647)
        .optional()
        .describe("How long an asynchronous extension call may take before it is logged and skipped as failed (default 10,000)."),
    },
    { error: builtinAtTopLevel },
  )
  .strict();

export type ExtensionsConfig = z.output<typeof ExtensionsConfigSchema>;
export const EXTENSIONS_CONFIG_FILE = "extensions.yml";
