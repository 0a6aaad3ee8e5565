// Types of args.mjs, for the TypeScript tests (the CLI itself is plain ESM with no build step).
export class UsageError extends Error {}
export const COMMANDS: Record<string, { args: string[]; options: string[]; summary: string }>;
export interface ParsedArgs {
  command: string | null;
  args: Record<string, string>;
  options: Record<string, string | true>;
  help: boolean;
}
export function parseArgs(argv: readonly string[]): ParsedArgs;
export function parseValue(text: string | undefined): unknown;
export function usage(): string;
