import type { AgentService } from "@/server/services/agents/agent-service";
import type { ChatService } from "@/server/services/chat-service";
import type { AppExtensions } from "@/server/services/extensions/app-extensions";
import { ListenConnection } from "./listen-connection";

export const SETTINGS_CHANNEL = "modex_settings";

export interface SettingsTargets {
  agents: AgentService;
  /** A web process's chats: loaded ones that are idle rebuild their agent on their next turn. */
  chat?: ChatService;
  extensions?: AppExtensions;
}

/**
 * Keeps a process's agent definitions and extension toggles current on PostgreSQL: a saved definition
 * (agent_definitions) or a toggle (extension_settings) is announced on `modex_settings` at commit (the
 * tables' triggers, payload: the table), and every process reads them again; the next chat turn and
 * the next agent node use the new definition. Once LISTEN takes effect, and after a dropped connection,
 * both are read again (an announcement made while nobody here listened is lost, the tables are not).
 */
export async function listenForSettings(url: string, targets: SettingsTargets, options: { reconnectMs?: number } = {}): Promise<ListenConnection> {
  const refresh = (what: "agents" | "extensions") => {
    const done = what === "agents" ? Promise.resolve(targets.agents.refresh()).then(() => targets.chat?.forgetIdle()) : targets.extensions?.refresh();
    void Promise.resolve(done).catch((error: unknown) => console.error(`[modex] reading the ${what} again failed: ${error instanceof Error ? error.message : String(error)}`));
  };
  return ListenConnection.start({
    url,
    channels: [SETTINGS_CHANNEL],
    applicationName: "modex-settings",
    reconnectMs: options.reconnectMs,
    onNotification: (_channel, table) => {
      if (table === "agent_definitions") refresh("agents");
      else if (table === "extension_settings") refresh("extensions");
    },
    // After each connection, the first included: a save committed after the process's first read of
    // the tables and before its LISTEN took effect (processes of a cluster start together) was
    // announced to nobody here.
    onConnected: () => {
      refresh("agents");
      refresh("extensions");
    },
  });
}
