"use client";

import { TRPCClientError } from "@trpc/client";
import { useTRPCClient } from "@/components/providers/trpc-provider";

/** The typed tRPC client (procedures as the routers declare them). */
export function useModexClient() {
  return useTRPCClient();
}

export type ModexClient = ReturnType<typeof useModexClient>;

/** The message a person should read: the server's, without tRPC's wrapping. */
export function errorMessage(e: unknown): string {
  if (e instanceof TRPCClientError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}

/** The tRPC error code (NOT_FOUND, CONFLICT, UNAUTHORIZED, ...), when the server sent one. */
export function errorCode(e: unknown): string | undefined {
  if (e instanceof TRPCClientError) return (e.data as { code?: string } | undefined)?.code;
  return undefined;
}

/** What a NOT_FOUND could not find, when the server says (`data.missing`: "instance", "node", "turn"). */
export function errorMissing(e: unknown): string | undefined {
  if (e instanceof TRPCClientError) return (e.data as { missing?: string | null } | undefined)?.missing ?? undefined;
  return undefined;
}
