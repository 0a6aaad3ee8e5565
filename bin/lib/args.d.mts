// Types of args.mjs, for the TypeScript tests (the CLI itself is plain ESM with no build step).
import type { CommandTable } from "./commands.mjs";
export class UsageError extends Error {}
export type OptionKind = "flag" | "value" | "count";
export const GLOBAL_OPTIONS: Record<string, OptionKind>;
export interface ParsedArgs {
  command: string | null;
  args: Record<string, string>;
  options: Record<string, string | true>;
  help: boolean;
}
export function optionKinds(commands: CommandTable): Map<string, OptionKind>;
export function wantsJson(argv: readonly string[]): boolean;
export function parseArgs(argv: readonly string[], commands: CommandTable): ParsedArgs;
export function parseValue(text: string | undefined): unknown;
export function usage(commands: CommandTable): string;
export function commandUsage(commands: CommandTable, name: string): string | null;
