-- When each process last beat (cluster_processes): the cluster status shows a heartbeat's age, which
-- expires_at alone cannot tell (processes may run with different lease times). Workers beat here too
-- from now on (role 'worker'), under their worker id: the id their leases name as owner.
ALTER TABLE "cluster_processes" ADD COLUMN "beat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now();
