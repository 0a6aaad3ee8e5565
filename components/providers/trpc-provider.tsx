"use client";

import { QueryClient, QueryClientProvider, isServer } from "@tanstack/react-query";
import { createTRPCClient, httpBatchStreamLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { type ReactNode, useState } from "react";
import type { AppRouter } from "@/server/api/root";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

function makeQueryClient(): QueryClient {
  // With SSR, a query fetched on the server must not refetch the instant the page hydrates.
  return new QueryClient({ defaultOptions: { queries: { staleTime: 30_000 } } });
}

let browserQueryClient: QueryClient | undefined;

/** One client per server request (never shared between users), one for the browser's lifetime. */
function getQueryClient(): QueryClient {
  if (isServer) return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}

// The browser talks to its own origin. During server rendering there is no origin; no query fetches
// there today, so a relative URL only has to be well-formed.
const TRPC_URL = "/api/trpc";

/** The most procedures the web app puts in one request, whatever the server accepts. */
const BATCH_CAP = 50;

function makeTRPCClient(maxBatch: number) {
  return createTRPCClient<AppRouter>({
    links: [
      // Subscriptions stream over server-sent events; queries and mutations share batched requests
      // whose responses stream back as each procedure finishes.
      splitLink({
        condition: (op) => op.type === "subscription",
        true: httpSubscriptionLink({ url: TRPC_URL }),
        // The server answers 400 to a batch of more than MODEX_MAX_BATCH (default 50) procedures: the
        // layout passes that setting in, so a server set lower still answers every page's batches.
        false: httpBatchStreamLink({ url: TRPC_URL, maxItems: Math.max(1, Math.min(maxBatch, BATCH_CAP)) }),
      }),
    ],
  });
}

/** `maxBatch`: the server's MODEX_MAX_BATCH. */
export function TRPCReactProvider({ children, maxBatch = BATCH_CAP }: { children: ReactNode; maxBatch?: number }) {
  const queryClient = getQueryClient();
  const [trpcClient] = useState(() => makeTRPCClient(maxBatch));
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
