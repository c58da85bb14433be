-- Page sessions ended by a logout, so that every replica refuses a copy of their cookie
-- (web/session-revocations.ts); rows are pruned once the session would have expired anyway.

-- CreateTable
CREATE TABLE "session_revocations" (
    "session_id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "session_revocations_pkey" PRIMARY KEY ("session_id")
);

-- CreateIndex
CREATE INDEX "session_revocations_seq_idx" ON "session_revocations"("seq");

-- CreateIndex
CREATE INDEX "session_revocations_expires_at_idx" ON "session_revocations"("expires_at");
