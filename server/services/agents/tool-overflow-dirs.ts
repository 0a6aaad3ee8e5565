import { rm } from "node:fs/promises";
import path from "node:path";
import { GraphKnowledgeBase } from "@/server/agent/knowledge/knowledge-base";
import type { ChatFiles } from "../chat/chat-types";

/** A session id that may name a directory (snowflakes do; anything else writes no file). */
const SAFE = /^[A-Za-z0-9_-]+$/;

/**
 * Where an agent's oversized tool results go (the full output the model is pointed at), so that they
 * are deleted with what they belong to: an agent node's (session `<instance id>:<node>`, see AgentNode)
 * under its instance's knowledge-base directory, which deleting the instance removes (AgentRuns.forget);
 * a chat's under `<workspace>/.modex/chats/<session id>/`, which deleting the chat removes (ChatFiles).
 */
export function toolOverflowDir(workspace: string, owner: { sessionId: string; node: string | null }): string {
  const { sessionId, node } = owner;
  if (node !== null && sessionId.endsWith(`:${node}`)) {
    const instanceId = sessionId.slice(0, -(node.length + 1));
    return path.join(GraphKnowledgeBase.forInstance(workspace, instanceId).dir, "tool-overflow");
  }
  return path.join(chatFilesDir(workspace, sessionId), "tool-overflow");
}

/** The files a chat's turns left in the workspace, deleted with the chat. */
export function workspaceChatFiles(workspace: string): ChatFiles {
  return { remove: (sessionId) => rm(chatFilesDir(workspace, sessionId), { recursive: true, force: true }) };
}

function chatFilesDir(workspace: string, sessionId: string): string {
  if (!SAFE.test(sessionId)) throw new Error(`chat id ${JSON.stringify(sessionId)} is not a safe directory name`);
  return path.join(workspace, ".modex", "chats", sessionId);
}
