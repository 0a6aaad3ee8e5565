-- Idempotency-Key: a repeated request (a client that retried after a lost connection) gets the first
-- answer instead of running the work twice. A key's row is written in the transaction of the work it
-- names (the new instance, the deliver row, the recorded answer), so a crash keeps both or neither.
CREATE TABLE "idempotency_keys" (
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "status" INTEGER,
    "response" TEXT,
    "created_at" DATETIME NOT NULL,
    PRIMARY KEY ("scope", "key")
);
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");
