-- Incidents: failing tests grouped by their root table (src/incidents, docs/incidents.md).

-- CreateTable
CREATE TABLE "incidents" (
    "id" TEXT NOT NULL,
    "datasource" TEXT NOT NULL,
    "table_name" TEXT NOT NULL,
    "opened_at" TIMESTAMPTZ(3) NOT NULL,
    "resolved_at" TIMESTAMPTZ(3),
    "opened_scan_id" TEXT NOT NULL,
    "resolved_scan_id" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "incidents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "incident_tests" (
    "incident_id" TEXT NOT NULL,
    "check_key" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "rule" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "check" TEXT NOT NULL,
    "column_name" TEXT,
    "severity" TEXT NOT NULL,
    "since" TIMESTAMPTZ(3) NOT NULL,
    "until" TIMESTAMPTZ(3),

    CONSTRAINT "incident_tests_pkey" PRIMARY KEY ("incident_id","check_key")
);

-- CreateTable
CREATE TABLE "incident_metrics" (
    "incident_id" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "impact" TEXT NOT NULL,
    "relationship" TEXT NOT NULL,
    "since" TIMESTAMPTZ(3) NOT NULL,
    "until" TIMESTAMPTZ(3),

    CONSTRAINT "incident_metrics_pkey" PRIMARY KEY ("incident_id","metric")
);

-- CreateIndex
CREATE INDEX "incidents_resolved_at_idx" ON "incidents"("resolved_at");

-- AddForeignKey
ALTER TABLE "incident_tests" ADD CONSTRAINT "incident_tests_incident_id_fkey" FOREIGN KEY ("incident_id") REFERENCES "incidents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "incident_metrics" ADD CONSTRAINT "incident_metrics_incident_id_fkey" FOREIGN KEY ("incident_id") REFERENCES "incidents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
