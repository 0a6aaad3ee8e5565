import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";

/** The cluster this process belongs to (the Cluster page): read-only. */
export const clusterRouter = createTRPCRouter({
  /** PostgreSQL: { mode: "cluster", processes, leases, queue }; SQLite: { mode: "single", process } (server/services/cluster-status.ts). */
  status: protectedProcedure.query(({ ctx }) => ctx.services.clusterStatus.read()),
});
