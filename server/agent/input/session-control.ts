import type { InputMessage } from "./input-adapter";

/** The commands the session-control stage knows, with what `/help` says of each. */
export const SESSION_COMMANDS = [
  { name: "stop", usage: "/stop", help: "stop the running turn (also one waiting for approval)" },
  { name: "approve", usage: "/approve [reason]", help: "approve the tool call the turn waits on" },
  { name: "deny", usage: "/deny [reason]", help: "deny the tool call the turn waits on; the model reads the reason" },
  { name: "new", usage: "/new", help: "start a new chat with the same agent" },
  { name: "help", usage: "/help", help: "list these commands" },
] as const;

export type SessionCommand = (typeof SESSION_COMMANDS)[number]["name"];

/** What the session-control stage decided: a control action, an answer for an unknown command, or text for the agent. */
export type ControlDecision =
  | { kind: "agent"; text: string }
  | { kind: "control"; command: SessionCommand; reason: string | null }
  | { kind: "unknown"; command: string; message: string };

export function helpText(): string {
  return ["Commands:", ...SESSION_COMMANDS.map((c) => `  ${c.usage.padEnd(18)} ${c.help}`)].join("\n");
}

/**
 * The session-control stage: intercepts commands before the agent sees them. Reasons are free text
 * after `/approve` and `/deny`; the other commands take none (extra words are refused, so a typo in a
 * sentence that starts with `/stop` never stops anything silently).
 */
export function sessionControl(input: InputMessage): ControlDecision {
  if (input.kind === "text") return { kind: "agent", text: input.text };
  const known = SESSION_COMMANDS.find((c) => c.name === input.name);
  if (!known) return { kind: "unknown", command: `/${input.name}`, message: `unknown command /${input.name}. ${helpText()}` };
  const takesReason = known.name === "approve" || known.name === "deny";
  if (!takesReason && input.args) {
    return { kind: "unknown", command: `/${input.name}`, message: `/${input.name} takes no arguments (usage: ${known.usage})` };
  }
  return { kind: "control", command: known.name, reason: takesReason && input.args ? input.args : null };
}
