import type { ExtensionManager } from "@/server/agent/extensions/extension-manager";
import { ExtensionContext } from "@/server/agent/extensions/extension-context";

/** What the chat tells about its sessions (ChatService's `sessions` option). */
export interface ChatSessionHooks {
  /** A chat was opened (after its row committed). */
  created(session: { sessionId: string; agent: string | null; title: string }): void;
  /** A chat was deleted (after the delete committed); `messageCount`: the user's messages (turns). */
  destroyed(session: { sessionId: string; agent: string | null; messageCount: number }): void;
}

/**
 * SESSION_CREATE and SESSION_DESTROY (COLLECT) for the chat's sessions. Fired and not awaited: the
 * chat's answer does not wait for extensions, whose failures the manager logs and counts anyway.
 */
export function chatSessionPoints(manager: ExtensionManager): ChatSessionHooks {
  return {
    created: ({ sessionId, agent, title }) => {
      if (!manager.extensionsFor("SESSION_CREATE").length) return;
      const ctx = new ExtensionContext<{ sessionId: string; context: Record<string, unknown> }>({ sessionId, agentId: agent ?? undefined, data: { sessionId, context: { agent, title, kind: "chat" } } });
      void manager.invokeCollect("SESSION_CREATE", ctx).catch(() => undefined);
    },
    destroyed: ({ sessionId, agent, messageCount }) => {
      if (!manager.extensionsFor("SESSION_DESTROY").length) return;
      const ctx = new ExtensionContext<{ sessionId: string; messageCount: number; context: Record<string, unknown> }>({
        sessionId,
        agentId: agent ?? undefined,
        data: { sessionId, messageCount, context: { agent, kind: "chat" } },
      });
      void manager.invokeCollect("SESSION_DESTROY", ctx).catch(() => undefined);
    },
  };
}
