-- freshness_anomaly learns when new rows land (the loads the daemon sees at each scan), not how
-- dense the event times are: per series, what was last seen (written only when it changes) and
-- the loads seen, bounded per series.

-- CreateTable
CREATE TABLE "table_load_states" (
    "series" TEXT NOT NULL,
    "first_seen" TIMESTAMPTZ(3) NOT NULL,
    "newest" BIGINT,
    "rows" BIGINT,
    "parts" TEXT,
    "loads" INTEGER NOT NULL,
    "last_load" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "table_load_states_pkey" PRIMARY KEY ("series")
);

-- CreateTable
CREATE TABLE "table_arrivals" (
    "series" TEXT NOT NULL,
    "arrived_at" TIMESTAMPTZ(3) NOT NULL,
    "gap_seconds" INTEGER,
    "slack_seconds" INTEGER NOT NULL,

    CONSTRAINT "table_arrivals_pkey" PRIMARY KEY ("series","arrived_at")
);
