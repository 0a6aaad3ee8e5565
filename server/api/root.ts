import "server-only";
import { healthRouter } from "@/server/api/routers/health";
import { createCallerFactory, createTRPCRouter, mergeRouters } from "@/server/api/trpc";

/** Composes the routers; nothing else belongs here. */
export const appRouter = mergeRouters(
  healthRouter, // top level: `health`
  createTRPCRouter({
    // Feature routers are namespaced here: `graphs: graphsRouter`, `instances: instancesRouter`, ...
  }),
);

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
